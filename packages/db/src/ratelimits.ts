import { newId } from '@keyplane/core';
import type { KeyRatelimit } from './keys.ts';
import { type EntityManager, rows, sql } from './sql.ts';

/** What a configured limit belongs to: a key or an identity (the `ratelimits` row has exactly one). */
export interface RatelimitOwner {
  workspaceId: string;
  column: 'key_id' | 'identity_id';
  id: string;
}

/**
 * The owner's limits become exactly these: a limit whose name stays is updated in place and keeps
 * its id (its counters are keyed by name, so they carry on), missing names are deleted, new names
 * inserted; `[]` removes them all. Names must be unique in `limits` (the request schemas ensure it).
 */
export async function replaceRatelimits(
  em: EntityManager,
  owner: RatelimitOwner,
  limits: readonly KeyRatelimit[],
): Promise<void> {
  const column = sql.ref(owner.column);
  const names = limits.map((limit) => limit.name);
  await rows(em, sql`delete from ratelimits where ${column} = ${owner.id} and not (name = any(${names}::text[]))`);
  if (limits.length === 0) return;
  const incoming = limits.map((limit) => ({ id: newId('ratelimit'), ...limit }));
  await rows(
    em,
    sql`
      insert into ratelimits (id, workspace_id, ${column}, name, "limit", duration_ms, auto_apply, created_at)
      select t.id, ${owner.workspaceId}, ${owner.id}, t.name, t."limit", t."durationMs", t."autoApply", now()
      from jsonb_to_recordset(${JSON.stringify(incoming)}::jsonb)
        as t(id text, name text, "limit" int, "durationMs" bigint, "autoApply" boolean)
      on conflict (${column}, name) do update set "limit" = excluded."limit", duration_ms = excluded.duration_ms,
        auto_apply = excluded.auto_apply, updated_at = now()`,
  );
}
