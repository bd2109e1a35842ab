import { type LimitedResource, MAX_KEY_ROLE_PERMISSIONS } from '@keyplane/core';
import { LimitReached } from './errors.ts';
import { type EntityManager, rows, sql, typed } from './sql.ts';

/** Names the advisory locks of workspace bounds (any constant no other lock of ours uses). */
const BOUNDS_LOCK = 0x6b706c01;

/**
 * Takes the workspace's bounds lock for the rest of the transaction (docs/contract.md#limits):
 * every write that adds rows a bound counts takes it before counting, so concurrent writes on any
 * node count one after the other and together never pass the bound. A transaction-scoped advisory
 * lock on the workspace id's hash: it locks no row, so verification and everything else that
 * reads or references the workspace's rows never waits for it; two workspaces whose ids share a
 * hash merely take turns.
 */
export async function lockWorkspaceBounds(tx: EntityManager, workspaceId: string): Promise<void> {
  // Raw: an advisory lock, which the builder has no word for.
  await rows(tx, sql`select pg_advisory_xact_lock(${BOUNDS_LOCK}::int, hashtext(${workspaceId}))`);
}

/**
 * Once `added` rows were written under the lock, refuses the write when their holder now has more
 * than `limit` (the transaction rolls back, so nothing was added). Adding none always passes, so a
 * holder already past a lowered limit can still change and delete what it has.
 */
export function requireWithinLimit(resource: LimitedResource, limit: number, countAfter: number, added: number): void {
  if (added > 0 && countAfter > limit) throw new LimitReached(resource, limit);
}

/**
 * Refuses (LimitReached) when the roles of any of these keys hold more than
 * MAX_KEY_ROLE_PERMISSIONS permissions between them: after roles were given to them.
 */
export async function requireKeyRolesWithinLimit(em: EntityManager, keyIds: readonly string[]): Promise<void> {
  if (keyIds.length === 0) return;
  const over = await typed(em)
    .selectFrom('keys_roles as kr')
    .innerJoin('roles_permissions as rp', 'rp.role_id', 'kr.role_id')
    .select('kr.key_id')
    .where((eb) => eb('kr.key_id', '=', eb.fn.any(eb.val([...keyIds]))))
    .groupBy('kr.key_id')
    .having((eb) => eb.fn.countAll(), '>', MAX_KEY_ROLE_PERMISSIONS)
    .limit(1)
    .executeTakeFirst();
  if (over) throw new LimitReached('keyRolePermissions', MAX_KEY_ROLE_PERMISSIONS);
}

/**
 * Refuses (LimitReached) when a key holding the role now has roles holding more than
 * MAX_KEY_ROLE_PERMISSIONS permissions between them: after the role grew. Its cost grows with the
 * keys holding the role, which only a change to a role's permissions pays.
 */
export async function requireHoldersWithinLimit(em: EntityManager, roleId: string): Promise<void> {
  const over = await typed(em)
    .selectFrom('keys_roles as holder')
    .innerJoin('keys_roles as kr', 'kr.key_id', 'holder.key_id')
    .innerJoin('roles_permissions as rp', 'rp.role_id', 'kr.role_id')
    .select('holder.key_id')
    .where('holder.role_id', '=', roleId)
    .groupBy('holder.key_id')
    .having((eb) => eb.fn.countAll(), '>', MAX_KEY_ROLE_PERMISSIONS)
    .limit(1)
    .executeTakeFirst();
  if (over) throw new LimitReached('keyRolePermissions', MAX_KEY_ROLE_PERMISSIONS);
}
