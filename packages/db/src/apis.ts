import type { ChangeLog } from '@keyplane/caches';
import { type ApiDeletionStore, newId } from '@keyplane/core';
import type { Selectable } from 'kysely';
import type { Database } from './entities/database.ts';
import { Api } from './entities/index.ts';
import { amongIds, containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, sql, typed } from './sql.ts';

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

const apiColumns = [
  'id',
  'workspace_id',
  'name',
  'key_auth_enabled',
  'encryption_enabled',
  'default_prefix',
  'default_bytes',
  'delete_protection',
  'created_at',
] as const;

type ApiRow = Pick<Selectable<Database['apis']>, (typeof apiColumns)[number]>;

function apiRecord(row: ApiRow): ApiRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    keyAuthEnabled: row.key_auth_enabled,
    encryptionEnabled: row.encryption_enabled,
    defaultPrefix: row.default_prefix,
    defaultBytes: row.default_bytes,
    deleteProtection: row.delete_protection,
    createdAt: row.created_at.getTime(),
  };
}

const liveApis = (em: EntityManager, workspaceId: string) =>
  typed(em)
    .selectFrom('apis')
    .select(apiColumns)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null);

/** A live API of the workspace; an API of another workspace does not exist for the caller. */
export async function findApi(em: EntityManager, workspaceId: string, apiId: string): Promise<ApiRecord | undefined> {
  const row = await liveApis(em, workspaceId).where('id', '=', apiId).executeTakeFirst();
  return row && apiRecord(row);
}

/** A page of the workspace's live APIs in id order; `search` matches the id or the name. */
export async function listApis(em: EntityManager, workspaceId: string, query: PageQuery): Promise<ApiRecord[]> {
  const found = await liveApis(em, workspaceId)
    .where(startingAt('id', query.fromId))
    .where(containsAny(['id', 'name'], query.search))
    .where(amongIds('id', query.ids))
    .orderBy('id')
    .limit(query.count)
    .execute();
  return found.map(apiRecord);
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

/**
 * Deleting an API on a transaction. The row lock orders a deletion against a concurrent change of
 * the delete protection; the NOTIFY, delivered on commit, makes every node forget the workspace's
 * cached keys (every key lookup joins live APIs).
 */
export function apiDeletionStore(tx: EntityManager, changeLog: ChangeLog): ApiDeletionStore {
  return {
    async lockLiveApi(workspaceId, apiId) {
      const api = await liveApis(tx, workspaceId).where('id', '=', apiId).forUpdate().executeTakeFirst();
      return api && { deleteProtection: api.delete_protection };
    },
    async markApiDeleted(workspaceId, apiId) {
      await typed(tx)
        .updateTable('apis')
        .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
        .where('id', '=', apiId)
        .execute();
      await changeLog.announce(tx, { workspaceId });
    },
  };
}
