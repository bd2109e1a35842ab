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
      // Raw: an advisory lock, held until the transaction ends: a node starting at the same time
      // waits, then sees this one's workspace.
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

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: number;
}

/** A live workspace by id; undefined once it is deleted. */
export async function findWorkspace(em: EntityManager, workspaceId: string): Promise<WorkspaceRecord | undefined> {
  const found = await typed(em)
    .selectFrom('workspaces')
    .select(['id', 'name', 'created_at'])
    .where('id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return found && { id: found.id, name: found.name, createdAt: found.created_at.getTime() };
}

/** The oldest live workspace (the one single sign-on joins unless OIDC_WORKSPACE names another); undefined: none. */
export async function findOldestWorkspace(em: EntityManager): Promise<WorkspaceRecord | undefined> {
  const found = await typed(em)
    .selectFrom('workspaces')
    .select(['id', 'name', 'created_at'])
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return found && { id: found.id, name: found.name, createdAt: found.created_at.getTime() };
}

/**
 * Deletes the workspace (marks it deleted: its audit log stays for the operator). From then on its
 * root keys and dashboard sessions do not authenticate and its keys do not verify: every lookup of
 * those joins a live workspace, and every node drops what it cached of the workspace. False when
 * there is no such live workspace.
 */
export async function deleteWorkspace(em: EntityManager, changeLog: ChangeLog, workspaceId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .updateTable('workspaces')
      .set({ deleted_at: sql`now()` })
      .where('id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await changeLog.announce(tx, { workspaceId });
    return true;
  });
}
