import type { LimitedResource } from '@keyplane/core';
import { LimitReached } from './errors.ts';
import { type EntityManager, rows, sql } from './sql.ts';

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
