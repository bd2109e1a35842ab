import type { ChangeLog } from '@keyplane/caches';
import {
  compilePatternOverrides,
  newId,
  type RatelimitNamespaceSnapshot,
  type RatelimitOverrideRule,
  WILDCARD,
} from '@keyplane/core';
import type { Selectable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Database } from './entities/database.ts';
import { lockWorkspaceBounds, requireWithinLimit } from './limits.ts';
import { amongIds, containsAny, type PageQuery, startingAt } from './listing.ts';
import { namedBy } from './lookup.ts';
import { type EntityManager, sql, typed } from './sql.ts';

/** A live namespace, as every node caches it: by id and by name within its workspace. */
export interface RatelimitNamespaceRecord {
  workspaceId: string;
  id: string;
  name: string;
}

/** The workspace's namespace with this id or name, deleted ones included. */
const namespaceNamed = (em: EntityManager, workspaceId: string, namespace: string) =>
  typed(em)
    .selectFrom('ratelimit_namespaces')
    .select(['id', 'name', 'deleted_at'])
    .where('workspace_id', '=', workspaceId)
    .$call(namedBy('name', namespace));

/**
 * What limiting needs of a namespace, in one statement: the namespace (by id or name, deleted ones
 * included), its live pattern overrides, and how many live overrides name an identifier exactly.
 * Undefined when the workspace has no such namespace.
 */
export async function findRatelimitNamespace(
  em: EntityManager,
  workspaceId: string,
  namespace: string,
): Promise<RatelimitNamespaceSnapshot | undefined> {
  const found = await typed(em)
    .selectFrom(namespaceNamed(em, workspaceId, namespace).as('n'))
    .select((eb) => {
      const liveOverrides = () =>
        eb
          .selectFrom('ratelimit_overrides as o')
          .whereRef('o.namespace_id', '=', 'n.id')
          .where('o.deleted_at', 'is', null);
      const isPattern = sql<boolean>`strpos(o.identifier, ${WILDCARD}) > 0`;
      return [
        'n.id',
        'n.name',
        'n.deleted_at',
        jsonArrayFrom(
          liveOverrides().where(isPattern).select(['o.id', 'o.identifier', 'o.limit', 'o.duration_ms']).orderBy('o.id'),
        ).as('patterns'),
        liveOverrides()
          .where(sql<boolean>`not ${isPattern}`)
          .select(sql<number>`count(*)::int`.as('exact'))
          .as('exact'),
      ];
    })
    .executeTakeFirst();
  if (!found) return undefined;
  return {
    workspaceId,
    id: found.id,
    name: found.name,
    deleted: found.deleted_at !== null,
    patternOverrides: compilePatternOverrides(found.patterns.map(overrideRule)),
    exactOverrides: found.exact ?? 0,
  };
}

type RatelimitOverrideRow = Pick<
  Selectable<Database['ratelimit_overrides']>,
  'id' | 'identifier' | 'limit' | 'duration_ms'
>;

const overrideRule = (row: RatelimitOverrideRow): RatelimitOverrideRule => ({
  id: row.id,
  identifier: row.identifier,
  limit: row.limit,
  durationMs: row.duration_ms,
});

/** The namespace's live override for exactly this identifier (a pattern is matched as text). */
export async function findExactOverride(
  em: EntityManager,
  namespaceId: string,
  identifier: string,
): Promise<RatelimitOverrideRule | undefined> {
  const found = await typed(em)
    .selectFrom('ratelimit_overrides')
    .select(['id', 'identifier', 'limit', 'duration_ms'])
    .where('namespace_id', '=', namespaceId)
    .where('identifier', '=', identifier)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return found && overrideRule(found);
}

/**
 * Creates the workspace's namespaces with these names, those that do not exist yet. Concurrent
 * first uses of one name race on the unique (workspace, name): the loser does nothing and finds
 * the winner's row afterwards. Names go in sorted order, so two batches naming the same names
 * lock them in the same order and cannot deadlock. Past `limit` live namespaces none is created
 * (LimitReached), counted under the workspace's bounds lock. Returns the ids of the ones this
 * call created.
 */
export async function createRatelimitNamespaces(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  names: readonly string[],
  limit: number,
): Promise<Map<string, string>> {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return new Map();
  return em.transactional(async (tx) => {
    await lockWorkspaceBounds(tx, workspaceId);
    const created = await typed(tx)
      .insertInto('ratelimit_namespaces')
      .values(
        sorted.map((name) => ({
          id: newId('ratelimitNamespace'),
          workspace_id: workspaceId,
          name,
          created_at: sql<Date>`now()`,
        })),
      )
      .onConflict((conflict) => conflict.columns(['workspace_id', 'name']).doNothing())
      .returning(['id', 'name'])
      .execute();
    if (created.length === 0) return new Map();
    requireWithinLimit('ratelimitNamespaces', limit, await countLiveNamespaces(tx, workspaceId), created.length);
    // A node may have cached these names as no namespace.
    await changeLog.announce(tx, { workspaceId, ratelimitNamespaces: created });
    return new Map(created.map((row) => [row.name, row.id]));
  });
}

async function countLiveNamespaces(em: EntityManager, workspaceId: string): Promise<number> {
  const counted = await typed(em)
    .selectFrom('ratelimit_namespaces')
    .select(sql<number>`count(*)::int`.as('total'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return counted.total;
}

/** The workspace's live namespace with this id or name. */
export async function findLiveRatelimitNamespace(
  em: EntityManager,
  workspaceId: string,
  namespace: string,
): Promise<RatelimitNamespaceRecord | undefined> {
  const found = await namespaceNamed(em, workspaceId, namespace).executeTakeFirst();
  if (!found || found.deleted_at !== null) return undefined;
  return { workspaceId, id: found.id, name: found.name };
}

/**
 * Soft-deletes a live namespace; false when there is none. Its name stays taken (the unique
 * constraint is not partial), so limiting by the name answers 410 rather than creating a new one.
 */
export async function deleteRatelimitNamespace(
  em: EntityManager,
  changeLog: ChangeLog,
  namespace: RatelimitNamespaceRecord,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .updateTable('ratelimit_namespaces')
      .set({ deleted_at: sql`now()` })
      .where('id', '=', namespace.id)
      .where('workspace_id', '=', namespace.workspaceId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await changeLog.announce(tx, {
      workspaceId: namespace.workspaceId,
      ratelimitNamespaces: [{ id: namespace.id, name: namespace.name }],
    });
    return true;
  });
}

export interface RatelimitNamespaceListing {
  id: string;
  name: string;
  createdAt: number;
}

/** A page of the workspace's live namespaces in id order; `search` matches the id or the name. */
export async function listRatelimitNamespaces(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
): Promise<RatelimitNamespaceListing[]> {
  const found = await typed(em)
    .selectFrom('ratelimit_namespaces')
    .select(['id', 'name', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .where(startingAt('id', query.fromId))
    .where(containsAny(['id', 'name'], query.search))
    .where(amongIds('id', query.ids))
    .orderBy('id')
    .limit(query.count)
    .execute();
  return found.map((namespace) => ({
    id: namespace.id,
    name: namespace.name,
    createdAt: namespace.created_at.getTime(),
  }));
}
