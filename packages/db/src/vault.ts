import type { VaultStore } from '@keyplane/core';
import { type EntityManager, rows, sql } from './sql.ts';

// Raw: the typed view of `vault_keys` has no `workspace_id` (MikroORM infers no column for the
// owning side of a one-to-one relation, which this table's key is).

/** Stores the workspace's data key, wrapped by the master key; false when it has one, which stays. */
export async function storeDataKey(em: EntityManager, workspaceId: string, wrappedKey: string): Promise<boolean> {
  const inserted = await rows(
    em,
    sql<{ workspace_id: string }>`
      insert into vault_keys (workspace_id, wrapped_key, created_at) values (${workspaceId}, ${wrappedKey}, now())
      on conflict (workspace_id) do nothing returning workspace_id`,
  );
  return inserted.length > 0;
}

/** The workspace's data key as stored, wrapped by the master key; undefined when its vault is not set up. */
export async function findWrappedDataKey(em: EntityManager, workspaceId: string): Promise<string | undefined> {
  const [found] = await rows(
    em,
    sql<{ wrappedKey: string }>`select wrapped_key as "wrappedKey" from vault_keys where workspace_id = ${workspaceId}`,
  );
  return found?.wrappedKey;
}

/** The vault as core reads it (core's loadDataKey unwraps what is stored). */
export const vaultStore = (em: EntityManager): VaultStore => ({
  findWrappedDataKey: (workspaceId) => findWrappedDataKey(em, workspaceId),
});
