import type { ChangeLog } from '@keyplane/caches';
import type { RootKeyChangeStore, RootKeyStore } from '@keyplane/core';
import { budgetedPageLength, type ChosenPage, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, sql, typed, unixMs, unnestAs } from './sql.ts';
import { enqueueWebhookEvent } from './webhooks.ts';

/** Root keys stored as core issues them, on the caller's transaction. */
export function rootKeyStore(em: EntityManager): RootKeyStore {
  return {
    async insertRootKey(rootKey) {
      await typed(em)
        .insertInto('root_keys')
        .values({
          id: rootKey.id,
          workspace_id: rootKey.workspaceId,
          name: rootKey.name,
          hash: rootKey.hash,
          start: rootKey.start,
          permissions: rootKey.permissions,
          expires_at: rootKey.expiresAt,
          created_at: sql`now()`,
        })
        .execute();
      await enqueueWebhookEvent(em, {
        workspaceId: rootKey.workspaceId,
        type: 'rootkey.created',
        apiId: null,
        data: { rootKeyId: rootKey.id, name: rootKey.name, permissions: rootKey.permissions },
      });
    },
  };
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
  const found = await typed(em)
    .selectFrom('root_keys as r')
    .innerJoin('workspaces as w', 'w.id', 'r.workspace_id')
    .select(['r.id', 'r.workspace_id', 'r.hash', 'r.permissions', 'r.expires_at', 'r.revoked_at'])
    .select('w.api_requests_per_minute')
    .where('r.hash', '=', hash)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  return (
    found && {
      id: found.id,
      workspaceId: found.workspace_id,
      hash: found.hash,
      permissions: found.permissions,
      expiresAt: unixMs(found.expires_at),
      revokedAt: unixMs(found.revoked_at),
      apiRequestsPerMinute: found.api_requests_per_minute,
    }
  );
}

/**
 * Changes to root keys on the caller's transaction, each announced to every node that may have
 * cached the key: delivered on commit, and settled by whoever made the ChangeLog (the procedures'
 * middleware, the CLI) before it answers.
 */
export function rootKeyChangeStore(tx: EntityManager, changeLog: ChangeLog): RootKeyChangeStore {
  const announce = (rootKey: { workspaceId: string; hash: string }) =>
    changeLog.announce(tx, { workspaceId: rootKey.workspaceId, rootKeyHashes: [rootKey.hash] });
  return {
    async lockRootKey(rootKeyId, workspaceId) {
      let query = typed(tx)
        .selectFrom('root_keys')
        .select(['id', 'workspace_id', 'hash', 'permissions', 'expires_at'])
        .where('id', '=', rootKeyId)
        .forUpdate();
      if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
      const found = await query.executeTakeFirst();
      return (
        found && {
          id: found.id,
          workspaceId: found.workspace_id,
          hash: found.hash,
          permissions: found.permissions,
          expiresAt: unixMs(found.expires_at),
        }
      );
    },
    async revokeRootKey(rootKey) {
      await typed(tx)
        .updateTable('root_keys')
        .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', sql<Date>`now()`) }))
        .where('id', '=', rootKey.id)
        .execute();
      await announce(rootKey);
      await enqueueWebhookEvent(tx, {
        workspaceId: rootKey.workspaceId,
        type: 'rootkey.revoked',
        apiId: null,
        data: { rootKeyId: rootKey.id },
      });
    },
    async setRootKeyExpiry(rootKey, expiresAt) {
      await typed(tx)
        .updateTable('root_keys')
        .set({ expires_at: expiresAt === null ? null : new Date(expiresAt) })
        .where('id', '=', rootKey.id)
        .execute();
      await announce(rootKey);
    },
  };
}

/** Records the latest use of each root key (unix ms), never moving one back. */
export async function recordRootKeyUses(em: EntityManager, uses: ReadonlyMap<string, number>): Promise<void> {
  // One set-based statement for the whole batch of uses.
  await typed(em)
    .updateTable('root_keys as r')
    .from(unnestAs('u', { id: ['text', [...uses.keys()]], time: ['float8', [...uses.values()]] }))
    .set({ last_used_at: sql<Date>`greatest(r.last_used_at, to_timestamp(u.time / 1000.0))` })
    .whereRef('r.id', '=', 'u.id')
    .execute();
}

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

const rootKeyListing = (em: EntityManager) =>
  typed(em)
    .selectFrom('root_keys')
    .select(['id', 'name', 'start', 'permissions', 'created_at', 'last_used_at', 'expires_at', 'revoked_at']);

/** Every root key of the workspace, oldest first: for the CLI, an operator's tool. */
export async function listRootKeys(em: EntityManager, workspaceId: string): Promise<RootKeyListing[]> {
  const found = await rootKeyListing(em)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return found.map(toListing);
}

/**
 * A page of the workspace's root keys by id (creation order): at most `page.count - 1` keys holding
 * at most `maxPermissions` permissions between them (one key at least). The keys are chosen by how
 * many permissions they hold before any is read: a root key may hold 1000.
 */
export async function listRootKeyPage(
  em: EntityManager,
  workspaceId: string,
  page: PageQuery,
  maxPermissions: number,
): Promise<ChosenPage<RootKeyListing>> {
  const candidates = await typed(em)
    .selectFrom('root_keys')
    .select(['id', sql<number>`cardinality(permissions)`.as('permission_count')])
    .where('workspace_id', '=', workspaceId)
    .where(startingAt('id', page.fromId))
    .orderBy('id')
    .limit(page.count)
    .execute();
  const length = budgetedPageLength(
    candidates.map((candidate) => candidate.permission_count),
    page.count - 1,
    maxPermissions,
  );
  const ids = candidates.slice(0, length).map((candidate) => candidate.id);
  const found = ids.length === 0 ? [] : await rootKeyListing(em).where('id', 'in', ids).orderBy('id').execute();
  return { rows: found.map(toListing), nextId: candidates[length]?.id };
}

type RootKeyListingRow = Awaited<ReturnType<ReturnType<typeof rootKeyListing>['execute']>>[number];

function toListing(rootKey: RootKeyListingRow): RootKeyListing {
  return {
    rootKeyId: rootKey.id,
    name: rootKey.name,
    start: rootKey.start,
    permissions: rootKey.permissions,
    createdAt: rootKey.created_at.getTime(),
    lastUsedAt: unixMs(rootKey.last_used_at),
    expiresAt: unixMs(rootKey.expires_at),
    revokedAt: unixMs(rootKey.revoked_at),
  };
}
