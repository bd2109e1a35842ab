import { type EntityManager, rows, sql } from './sql.ts';

export interface KeyRecord {
  id: string;
  workspaceId: string;
  apiId: string;
  hash: string;
  identityId: string | null;
}

/**
 * A live key of the workspace by id. Deleted keys, keys of a deleted API and keys of another
 * workspace do not exist for the caller.
 */
export async function findKeyRecord(
  em: EntityManager,
  workspaceId: string,
  keyId: string,
  options: { forUpdate?: boolean } = {},
): Promise<KeyRecord | undefined> {
  const [found] = await rows(
    em,
    sql<KeyRecord>`
      select k.id, k.workspace_id as "workspaceId", k.api_id as "apiId", k.hash, k.identity_id as "identityId"
      from keys k join apis a on a.id = k.api_id and a.deleted_at is null
      where k.id = ${keyId} and k.workspace_id = ${workspaceId} and k.deleted_at is null
      ${options.forUpdate ? sql`for update of k` : sql``}`,
  );
  return found;
}
