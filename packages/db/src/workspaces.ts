import { allRootKeyPermissions, newId } from '@keyplane/core';
import { Workspace } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import { createRootKey } from './rootKeys.ts';
import { type EntityManager, rows, sql } from './sql.ts';
import { enableVault } from './vault.ts';

/** Arbitrary constant naming the advisory lock that serialises first-start bootstraps. */
const BOOTSTRAP_LOCK = 7_301_776;

export interface Bootstrapped {
  workspaceId: string;
  rootKeyId: string;
  rootKey: string;
  vault: boolean;
}

/** A new workspace with a root key that holds every permission (and a vault when a master key is configured). */
export async function bootstrapWorkspace(
  em: EntityManager,
  options: { name: string; masterKey?: Uint8Array },
): Promise<Bootstrapped> {
  return em.transactional(async (tx) => {
    const workspace = tx.create(Workspace, { id: newId('workspace'), name: options.name });
    await tx.flush();
    const { rootKeyId, rootKey } = await createRootKey(tx, {
      workspaceId: workspace.id,
      name: 'bootstrap',
      permissions: allRootKeyPermissions(),
    });
    if (options.masterKey) await enableVault(tx, workspace.id, options.masterKey);
    return { workspaceId: workspace.id, rootKeyId, rootKey, vault: Boolean(options.masterKey) };
  });
}

export async function workspaceExists(em: EntityManager, workspaceId: string): Promise<boolean> {
  const found = await rows(
    em,
    sql<{ one: number }>`select 1 as one from workspaces where id = ${workspaceId} and deleted_at is null`,
  );
  return found.length > 0;
}

/**
 * Sets (null: removes) how many API requests per minute the workspace's root keys may make. Every
 * node drops the workspace's cached root keys, which carry the limit. False when there is no such
 * workspace.
 */
export async function setWorkspaceApiRateLimit(
  em: EntityManager,
  workspaceId: string,
  requestsPerMinute: number | null,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const updated = await rows(
      tx,
      sql<{ id: string }>`
        update workspaces set api_requests_per_minute = ${requestsPerMinute}
        where id = ${workspaceId} and deleted_at is null returning id`,
    );
    if (updated.length === 0) return false;
    await notifyInvalidation(tx, { workspaceId });
    return true;
  });
}

/**
 * On a database with no workspace, creates the default one; several nodes starting together on a
 * fresh database create exactly one. Returns undefined when the database already had a workspace.
 */
export async function bootstrapIfEmpty(
  em: EntityManager,
  options: { name: string; masterKey?: Uint8Array },
): Promise<Bootstrapped | undefined> {
  return em.transactional(async (tx) => {
    await rows(tx, sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`);
    const found = await rows(tx, sql<{ one: number }>`select 1 as one from workspaces limit 1`);
    return found.length > 0 ? undefined : bootstrapWorkspace(tx, options);
  });
}
