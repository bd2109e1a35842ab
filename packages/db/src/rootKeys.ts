import { generateKey, newId } from '@keyplane/core';
import { RootKey } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

const ROOT_KEY_PREFIX = 'kproot';
const ROOT_KEY_BYTES = 24;

export async function createRootKey(
  em: EntityManager,
  options: { workspaceId: string; name?: string; permissions: string[]; expiresAt?: Date },
): Promise<{ rootKeyId: string; rootKey: string }> {
  const material = generateKey({ prefix: ROOT_KEY_PREFIX, byteLength: ROOT_KEY_BYTES });
  const rootKey = em.create(RootKey, {
    id: newId('rootKey'),
    workspace: options.workspaceId,
    name: options.name ?? null,
    hash: material.hash,
    start: material.start,
    permissions: [...new Set(options.permissions)],
    expiresAt: options.expiresAt ?? null,
  });
  await em.flush();
  return { rootKeyId: rootKey.id, rootKey: material.key };
}

export interface RootKeyRecord {
  id: string;
  workspaceId: string;
  hash: string;
  permissions: string[];
  expiresAt: number | null;
  revokedAt: number | null;
}

/** The auth middleware's lookup: one indexed read, so a revocation is seen by the very next request. */
export async function findRootKeyByHash(em: EntityManager, hash: string): Promise<RootKeyRecord | undefined> {
  const [found] = await rows(
    em,
    sql<RootKeyRecord>`
      select r.id, r.workspace_id as "workspaceId", r.hash, r.permissions,
             ${epochMs('r.expires_at')} as "expiresAt", ${epochMs('r.revoked_at')} as "revokedAt"
      from root_keys r join workspaces w on w.id = r.workspace_id
      where r.hash = ${hash} and w.deleted_at is null`,
  );
  return found;
}

/**
 * Revokes a root key; false when there is no such key. Revoking twice keeps the first time. Every
 * node that cached the key hears of it before this returns (from the CLI as well as the server).
 */
export async function revokeRootKey(em: EntityManager, rootKeyId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const [revoked] = await rows(
      tx,
      sql<{ hash: string; workspaceId: string }>`
        update root_keys set revoked_at = coalesce(revoked_at, now()) where id = ${rootKeyId}
        returning hash, workspace_id as "workspaceId"`,
    );
    if (!revoked) return false;
    await notifyInvalidation(tx, { workspaceId: revoked.workspaceId, rootKeyHashes: [revoked.hash] });
    return true;
  });
}

export interface RootKeyListing {
  rootKeyId: string;
  name: string | null;
  start: string;
  permissions: string[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export async function listRootKeys(em: EntityManager, workspaceId: string): Promise<RootKeyListing[]> {
  return rows(
    em,
    sql<RootKeyListing>`
      select id as "rootKeyId", name, start, permissions, ${epochMs('created_at')} as "createdAt",
             ${epochMs('expires_at')} as "expiresAt", ${epochMs('revoked_at')} as "revokedAt"
      from root_keys where workspace_id = ${workspaceId} order by created_at, id`,
  );
}
