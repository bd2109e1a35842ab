import { newId, type RatelimitOverrideRule } from '@keyplane/core';
import { type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, rows, sql } from './sql.ts';

export interface NewRatelimitOverride {
  identifier: string;
  limit: number;
  durationMs: number;
}

const overrideColumns = sql`id, identifier, "limit", duration_ms::float8 as "durationMs"`;

/**
 * Sets the namespace's override for this identifier (exact, or a `*` pattern) and answers its id.
 * An upsert on the partial unique (namespace, identifier) of live overrides: an existing override
 * keeps its id, and of two concurrent first settings one inserts and the other updates it.
 */
export async function setRatelimitOverride(
  em: EntityManager,
  namespaceId: string,
  override: NewRatelimitOverride,
): Promise<string> {
  const [set] = await rows(
    em,
    sql<{ id: string }>`
      insert into ratelimit_overrides (id, namespace_id, identifier, "limit", duration_ms, created_at)
      values (${newId('ratelimitOverride')}, ${namespaceId}, ${override.identifier}, ${override.limit},
              ${override.durationMs}, now())
      on conflict (namespace_id, identifier) where deleted_at is null
        do update set "limit" = excluded."limit", duration_ms = excluded.duration_ms, updated_at = now()
      returning id`,
  );
  if (!set) throw new Error('the override upsert returned no row');
  return set.id;
}

/** Soft-deletes the live override with exactly this identifier (a pattern is matched as text); false when there is none. */
export async function deleteRatelimitOverride(
  em: EntityManager,
  namespaceId: string,
  identifier: string,
): Promise<boolean> {
  const deleted = await rows(
    em,
    sql`
      update ratelimit_overrides set deleted_at = now(), updated_at = now()
      where namespace_id = ${namespaceId} and identifier = ${identifier} and deleted_at is null
      returning id`,
  );
  return deleted.length > 0;
}

/** One page of the namespace's live overrides in id order. */
export async function listRatelimitOverrides(
  em: EntityManager,
  namespaceId: string,
  page: PageQuery,
): Promise<RatelimitOverrideRule[]> {
  return rows(
    em,
    sql<RatelimitOverrideRule>`
      select ${overrideColumns} from ratelimit_overrides
      where namespace_id = ${namespaceId} and deleted_at is null and ${startingAt('id', page.fromId)}
      order by id
      limit ${page.count}`,
  );
}
