import { generateKey, newId } from '@keyplane/core';
import { RootKey } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import type { Orm } from './orm.ts';
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
  /** The workspace's API rate limit, requests per minute; null: none. */
  apiRequestsPerMinute: number | null;
}

/** The auth middleware's lookup: one indexed read, so a revocation is seen by the very next request. */
export async function findRootKeyByHash(em: EntityManager, hash: string): Promise<RootKeyRecord | undefined> {
  const [found] = await rows(
    em,
    sql<RootKeyRecord>`
      select r.id, r.workspace_id as "workspaceId", r.hash, r.permissions,
             ${epochMs('r.expires_at')} as "expiresAt", ${epochMs('r.revoked_at')} as "revokedAt",
             w.api_requests_per_minute as "apiRequestsPerMinute"
      from root_keys r join workspaces w on w.id = r.workspace_id
      where r.hash = ${hash} and w.deleted_at is null`,
  );
  return found;
}

/**
 * Revokes a root key; false when there is no such key. Revoking twice keeps the first time. Every
 * node that cached the key hears of it before this returns (from the CLI as well as the server).
 */
export async function revokeRootKey(
  em: EntityManager,
  rootKeyId: string,
  workspaceId?: string,
): Promise<RootKeyChange> {
  return changeRootKey(em, rootKeyId, workspaceId, sql`revoked_at = coalesce(revoked_at, now())`);
}

/** Sets (or, with null, clears) when the root key expires. */
export async function setRootKeyExpiry(
  em: EntityManager,
  workspaceId: string,
  rootKeyId: string,
  expiresAt: number | null,
): Promise<RootKeyChange> {
  const expires = expiresAt === null ? sql`null` : sql`to_timestamp(${expiresAt} / 1000.0)`;
  return changeRootKey(em, rootKeyId, workspaceId, sql`expires_at = ${expires}`);
}

/** The workspace of the root key that changed, or undefined when there is no such key. */
export type RootKeyChange = { workspaceId: string } | undefined;

/** One change to a root key, announced to every node that may have cached it before this returns. */
async function changeRootKey(
  em: EntityManager,
  rootKeyId: string,
  workspaceId: string | undefined,
  assignment: ReturnType<typeof sql>,
): Promise<RootKeyChange> {
  const inWorkspace = workspaceId === undefined ? sql`true` : sql`workspace_id = ${workspaceId}`;
  return em.transactional(async (tx) => {
    const [changed] = await rows(
      tx,
      sql<{ hash: string; workspaceId: string }>`
        update root_keys set ${assignment} where id = ${rootKeyId} and ${inWorkspace}
        returning hash, workspace_id as "workspaceId"`,
    );
    if (!changed) return undefined;
    await notifyInvalidation(tx, { workspaceId: changed.workspaceId, rootKeyHashes: [changed.hash] });
    return { workspaceId: changed.workspaceId };
  });
}

/**
 * Records when root keys were last used: many uses within a flush interval become one write per
 * key, off the request path, so authentication stays a cache hit.
 */
export function createRootKeyUsageTracker(
  orm: Orm,
  options: { flushIntervalMs?: number; onError?: (error: unknown) => void } = {},
) {
  let lastUse = new Map<string, number>();
  const flush = async (): Promise<void> => {
    if (lastUse.size === 0) return;
    const batch = lastUse;
    lastUse = new Map();
    try {
      await rows(
        orm.em.fork(),
        sql`
          update root_keys r set last_used_at = greatest(r.last_used_at, to_timestamp(u.time / 1000.0))
          from unnest(${[...batch.keys()]}::text[], ${[...batch.values()]}::float8[]) as u(id, time)
          where r.id = u.id`,
      );
    } catch (error) {
      for (const [id, time] of batch) lastUse.set(id, Math.max(time, lastUse.get(id) ?? 0));
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 5000);
  timer.unref();
  return {
    touch(rootKeyId: string, time: number): void {
      lastUse.set(rootKeyId, time);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type RootKeyUsageTracker = ReturnType<typeof createRootKeyUsageTracker>;

export interface RootKeyListing {
  rootKeyId: string;
  name: string | null;
  start: string;
  permissions: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

export async function listRootKeys(em: EntityManager, workspaceId: string): Promise<RootKeyListing[]> {
  return rows(
    em,
    sql<RootKeyListing>`
      select id as "rootKeyId", name, start, permissions, ${epochMs('created_at')} as "createdAt",
             ${epochMs('last_used_at')} as "lastUsedAt", ${epochMs('expires_at')} as "expiresAt", ${epochMs('revoked_at')} as "revokedAt"
      from root_keys where workspace_id = ${workspaceId} order by created_at, id`,
  );
}
