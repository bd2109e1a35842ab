import { createDataKey, unwrapDataKey } from '@keyplane/core';
import { type EntityManager, rows, sql } from './sql.ts';

/** Gives the workspace a data key wrapped by the master key. Enabling twice keeps the first key. */
export async function enableVault(
  em: EntityManager,
  workspaceId: string,
  masterKey: Uint8Array,
): Promise<'created' | 'already_enabled'> {
  const { wrapped } = createDataKey(masterKey, workspaceId);
  const inserted = await rows(
    em,
    sql<{ workspace_id: string }>`
      insert into vault_keys (workspace_id, wrapped_key, created_at) values (${workspaceId}, ${wrapped}, now())
      on conflict (workspace_id) do nothing returning workspace_id`,
  );
  return inserted.length > 0 ? 'created' : 'already_enabled';
}

/**
 * The workspace's data key, or undefined when its vault is not set up: no data key stored, or no
 * master key configured on this server to unwrap it.
 */
export async function loadDataKey(
  em: EntityManager,
  workspaceId: string,
  masterKey: Uint8Array | undefined,
): Promise<Buffer | undefined> {
  if (!masterKey) return undefined;
  const [found] = await rows(
    em,
    sql<{ wrappedKey: string }>`select wrapped_key as "wrappedKey" from vault_keys where workspace_id = ${workspaceId}`,
  );
  return found ? unwrapDataKey(masterKey, found.wrappedKey, workspaceId) : undefined;
}
