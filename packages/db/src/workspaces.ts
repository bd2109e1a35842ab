import type { ChangeLog } from '@keyplane/caches';
import type { WorkspaceStore } from '@keyplane/core';
import { rootKeyStore } from './rootKeys.ts';
import { type EntityManager, rows, sql, typed } from './sql.ts';
import { storeDataKey } from './vault.ts';

/** Arbitrary constant naming the advisory lock that serialises first-start bootstraps. */
const BOOTSTRAP_LOCK = 7_301_776;

/** Setting up workspaces as core does it, on the caller's transaction. */
export function workspaceStore(tx: EntityManager): WorkspaceStore {
  return {
    ...rootKeyStore(tx),
    storeDataKey: (workspaceId, wrappedKey) => storeDataKey(tx, workspaceId, wrappedKey),
    async insertWorkspace(workspace) {
      await typed(tx)
        .insertInto('workspaces')
        .values({ id: workspace.id, name: workspace.name, created_at: sql`now()` })
        .execute();
    },
    async isEmpty() {
      // Held until the transaction ends: a node starting at the same time waits, then sees this one's workspace.
      await rows(tx, sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
      const found = await typed(tx).selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
      return found === undefined;
    },
  };
}

export async function workspaceExists(em: EntityManager, workspaceId: string): Promise<boolean> {
  const found = await typed(em)
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return found !== undefined;
}

/**
 * Sets (null: removes) how many API requests per minute the workspace's root keys may make. Every
 * node drops the workspace's cached root keys, which carry the limit. False when there is no such
 * workspace.
 */
export async function setWorkspaceApiRateLimit(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  requestsPerMinute: number | null,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const updated = await typed(tx)
      .updateTable('workspaces')
      .set({ api_requests_per_minute: requestsPerMinute })
      .where('id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!updated) return false;
    await changeLog.announce(tx, { workspaceId });
    return true;
  });
}
