import { newId } from '@keyplane/core';
import type { KeyRatelimit } from './keys.ts';
import { type EntityManager, sql, typed } from './sql.ts';

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
  const names = limits.map((limit) => limit.name);
  let stale = typed(em).deleteFrom('ratelimits').where(owner.column, '=', owner.id);
  if (names.length > 0) stale = stale.where('name', 'not in', names);
  await stale.execute();
  if (limits.length === 0) return;
  await typed(em)
    .insertInto('ratelimits')
    .values(
      limits.map((limit) => ({
        id: newId('ratelimit'),
        workspace_id: owner.workspaceId,
        key_id: owner.column === 'key_id' ? owner.id : null,
        identity_id: owner.column === 'identity_id' ? owner.id : null,
        name: limit.name,
        limit: limit.limit,
        duration_ms: limit.durationMs,
        auto_apply: limit.autoApply,
        created_at: sql<Date>`now()`,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns([owner.column, 'name']).doUpdateSet((eb) => ({
        limit: eb.ref('excluded.limit'),
        duration_ms: eb.ref('excluded.duration_ms'),
        auto_apply: eb.ref('excluded.auto_apply'),
        updated_at: sql<Date>`now()`,
      })),
    )
    .execute();
}
