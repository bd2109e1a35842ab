import type { ChangeLog } from '@keyplane/caches';
import { isWildcardPattern, newId, type RatelimitOverrideRule, WILDCARD, type WorkspaceLimits } from '@keyplane/core';
import { lockWorkspaceBounds, requireWithinLimit } from './limits.ts';
import { type PageQuery, startingAt } from './listing.ts';
import type { RatelimitNamespaceRecord } from './ratelimitNamespaces.ts';
import { type EntityManager, sql, typed } from './sql.ts';
import { enqueueWebhookEvent } from './webhooks.ts';

/** A changed override changes its namespace's snapshot too (its patterns, its count of exact ones). */
const overrideChange = (namespace: RatelimitNamespaceRecord, identifier: string) => ({
  workspaceId: namespace.workspaceId,
  ratelimitNamespaces: [{ id: namespace.id, name: namespace.name }],
  ratelimitOverrides: [{ namespaceId: namespace.id, identifier }],
});

export interface NewRatelimitOverride {
  identifier: string;
  limit: number;
  durationMs: number;
}

/**
 * Sets the namespace's override for this identifier (exact, or a `*` pattern) and answers its id.
 * An upsert on the partial unique (namespace, identifier) of live overrides: an existing override
 * keeps its id, and of two concurrent first settings one inserts and the other updates it. A new
 * override may not take the namespace past its limits of overrides and of wildcard ones
 * (LimitReached), counted under the workspace's bounds lock; changing one always passes.
 */
export async function setRatelimitOverride(
  em: EntityManager,
  changeLog: ChangeLog,
  namespace: RatelimitNamespaceRecord,
  override: NewRatelimitOverride,
  limits: Pick<WorkspaceLimits, 'ratelimitOverrides' | 'ratelimitWildcardOverrides'>,
): Promise<string> {
  return em.transactional(async (tx) => {
    await lockWorkspaceBounds(tx, namespace.workspaceId);
    const set = await typed(tx)
      .insertInto('ratelimit_overrides')
      .values({
        id: newId('ratelimitOverride'),
        namespace_id: namespace.id,
        identifier: override.identifier,
        limit: override.limit,
        duration_ms: override.durationMs,
        created_at: sql`now()`,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['namespace_id', 'identifier'])
          .where('deleted_at', 'is', null)
          .doUpdateSet((eb) => ({
            limit: eb.ref('excluded.limit'),
            duration_ms: eb.ref('excluded.duration_ms'),
            updated_at: sql<Date>`now()`,
          })),
      )
      // xmax is 0 on a row this statement inserted, not on one it updated.
      .returning(['id', sql<boolean>`xmax = 0`.as('inserted')])
      .executeTakeFirstOrThrow();
    if (set.inserted) {
      const counted = await countLiveOverrides(tx, namespace.id);
      requireWithinLimit('ratelimitOverrides', limits.ratelimitOverrides, counted.all, 1);
      if (isWildcardPattern(override.identifier)) {
        requireWithinLimit('ratelimitWildcardOverrides', limits.ratelimitWildcardOverrides, counted.patterns, 1);
      }
    }
    await changeLog.announce(tx, overrideChange(namespace, override.identifier));
    await enqueueOverrideChanged(tx, namespace, {
      overrideId: set.id,
      identifier: override.identifier,
      limit: override.limit,
      duration: override.durationMs,
      deleted: false,
    });
    return set.id;
  });
}

async function countLiveOverrides(em: EntityManager, namespaceId: string): Promise<{ all: number; patterns: number }> {
  return typed(em)
    .selectFrom('ratelimit_overrides')
    .select([
      sql<number>`count(*)::int`.as('all'),
      sql<number>`(count(*) filter (where strpos(identifier, ${WILDCARD}) > 0))::int`.as('patterns'),
    ])
    .where('namespace_id', '=', namespaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
}

/** Soft-deletes the live override with exactly this identifier (a pattern is matched as text); false when there is none. */
export async function deleteRatelimitOverride(
  em: EntityManager,
  changeLog: ChangeLog,
  namespace: RatelimitNamespaceRecord,
  identifier: string,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .updateTable('ratelimit_overrides')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('namespace_id', '=', namespace.id)
      .where('identifier', '=', identifier)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await changeLog.announce(tx, overrideChange(namespace, identifier));
    await enqueueOverrideChanged(tx, namespace, { overrideId: deleted.id, identifier, deleted: true });
    return true;
  });
}

/** One page of the namespace's live overrides in id order. */
export async function listRatelimitOverrides(
  em: EntityManager,
  namespaceId: string,
  page: PageQuery,
): Promise<RatelimitOverrideRule[]> {
  const found = await typed(em)
    .selectFrom('ratelimit_overrides')
    .select(['id', 'identifier', 'limit', 'duration_ms'])
    .where('namespace_id', '=', namespaceId)
    .where('deleted_at', 'is', null)
    .where(startingAt('id', page.fromId))
    .orderBy('id')
    .limit(page.count)
    .execute();
  return found.map((override) => ({
    id: override.id,
    identifier: override.identifier,
    limit: override.limit,
    durationMs: override.duration_ms,
  }));
}

/** `ratelimit.override.changed`, for a set or a deletion. */
function enqueueOverrideChanged(tx: EntityManager, namespace: RatelimitNamespaceRecord, data: Record<string, unknown>) {
  return enqueueWebhookEvent(tx, {
    workspaceId: namespace.workspaceId,
    type: 'ratelimit.override.changed',
    apiId: null,
    data: { namespaceId: namespace.id, namespaceName: namespace.name, ...data },
  });
}
