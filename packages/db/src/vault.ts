import type { VaultStore } from '@keyplane/core';
import { type EntityManager, sql, typed } from './sql.ts';

/** Stores the workspace's data key, wrapped by the master key; false when it has one, which stays. */
export async function storeDataKey(em: EntityManager, workspaceId: string, wrappedKey: string): Promise<boolean> {
  const inserted = await typed(em)
    .insertInto('vault_keys')
    .values({ workspace_id: workspaceId, wrapped_key: wrappedKey, created_at: sql<Date>`now()` })
    .onConflict((oc) => oc.column('workspace_id').doNothing())
    .returning('workspace_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The workspace's data key as stored, wrapped by the master key; undefined when its vault is not set up. */
export async function findWrappedDataKey(em: EntityManager, workspaceId: string): Promise<string | undefined> {
  const found = await typed(em)
    .selectFrom('vault_keys')
    .select('wrapped_key')
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return found?.wrapped_key;
}

/** The vault as core reads it (core's loadDataKey unwraps what is stored). */
export const vaultStore = (em: EntityManager): VaultStore => ({
  findWrappedDataKey: (workspaceId) => findWrappedDataKey(em, workspaceId),
});
