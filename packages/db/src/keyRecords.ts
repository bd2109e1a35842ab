import { type EntityManager, typed } from './sql.ts';

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
  const query = typed(em)
    .selectFrom('keys as k')
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'k.api_id').on('a.deleted_at', 'is', null))
    .select(['k.id', 'k.workspace_id', 'k.api_id', 'k.hash', 'k.identity_id'])
    .where('k.id', '=', keyId)
    .where('k.workspace_id', '=', workspaceId)
    .where('k.deleted_at', 'is', null);
  const found = await (options.forUpdate ? query.forUpdate('k') : query).executeTakeFirst();
  return (
    found && {
      id: found.id,
      workspaceId: found.workspace_id,
      apiId: found.api_id,
      hash: found.hash,
      identityId: found.identity_id,
    }
  );
}
