import { newId } from '@keyplane/core';
import { Api } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

export interface ApiRecord {
  id: string;
  workspaceId: string;
  name: string;
  keyAuthEnabled: boolean;
  encryptionEnabled: boolean;
  defaultPrefix: string | null;
  defaultBytes: number | null;
  deleteProtection: boolean;
  createdAt: number;
}

export async function createApi(em: EntityManager, workspaceId: string, name: string): Promise<string> {
  const api = em.create(Api, { id: newId('api'), workspace: workspaceId, name });
  await em.flush();
  return api.id;
}

const apiColumns = sql`
  id, workspace_id as "workspaceId", name, key_auth_enabled as "keyAuthEnabled",
  encryption_enabled as "encryptionEnabled", default_prefix as "defaultPrefix", default_bytes as "defaultBytes",
  delete_protection as "deleteProtection", ${epochMs('created_at')} as "createdAt"`;

/** A live API of the workspace; an API of another workspace does not exist for the caller. */
export async function findApi(em: EntityManager, workspaceId: string, apiId: string): Promise<ApiRecord | undefined> {
  const [found] = await rows(
    em,
    sql<ApiRecord>`
      select ${apiColumns} from apis where id = ${apiId} and workspace_id = ${workspaceId} and deleted_at is null`,
  );
  return found;
}

/** A page of the workspace's live APIs in id order; `search` matches the id or the name. */
export async function listApis(em: EntityManager, workspaceId: string, query: PageQuery): Promise<ApiRecord[]> {
  return rows(
    em,
    sql<ApiRecord>`
      select ${apiColumns} from apis
      where workspace_id = ${workspaceId} and deleted_at is null
        and ${startingAt('id', query.fromId)} and ${containsAny(['id', 'name'], query.search)}
      order by id
      limit ${query.count}`,
  );
}

export interface ApiChanges {
  name?: string;
  keyAuthEnabled?: boolean;
  encryptionEnabled?: boolean;
  /** null clears the default. */
  defaultPrefix?: string | null;
  defaultBytes?: number | null;
  deleteProtection?: boolean;
}

/** Applies the given settings to a live API of the workspace; false when there is none. */
export async function updateApi(
  em: EntityManager,
  workspaceId: string,
  apiId: string,
  changes: ApiChanges,
): Promise<boolean> {
  const data: ApiChanges = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  const updated = await em.nativeUpdate(
    Api,
    { id: apiId, workspace: workspaceId, deletedAt: null },
    { ...data, updatedAt: new Date() },
  );
  return updated > 0;
}

/** What {@link deleteApi} did: only `deleted` changed anything. */
export type ApiDeletion = 'deleted' | 'not_found' | 'protected';

/**
 * Soft-deletes a live API of the workspace unless it has delete protection. Its keys stay as rows
 * but exist for no procedure (every key lookup joins live APIs). The row lock orders this against
 * a concurrent change of the protection; the NOTIFY, delivered on commit, makes every node forget
 * the workspace's cached keys.
 */
export async function deleteApi(em: EntityManager, workspaceId: string, apiId: string): Promise<ApiDeletion> {
  return em.transactional(async (tx) => {
    const [api] = await rows(
      tx,
      sql<{ deleteProtection: boolean }>`
        select delete_protection as "deleteProtection" from apis
        where id = ${apiId} and workspace_id = ${workspaceId} and deleted_at is null
        for update`,
    );
    if (!api) return 'not_found';
    if (api.deleteProtection) return 'protected';
    await rows(tx, sql`update apis set deleted_at = now(), updated_at = now() where id = ${apiId}`);
    await notifyInvalidation(tx, { workspaceId });
    return 'deleted';
  });
}
