import { apiNotFound, loadDataKey, PRECONDITION_DETAILS, preconditionFailed } from '@keyplane/core';
import { findApi, vaultStore } from '@keyplane/db';
import type { Context } from '../context.ts';
import { apiPermission, type RootKeyPrincipal, requirePermissions } from './auth.ts';

/**
 * The checks for returning plaintexts of an API's keys, in the reference order: the workspace
 * vault (412), the root key's `decrypt_key` (403), the API's encryption setting (412). Returns the
 * workspace's data key.
 */
export async function authorizeDecryption(
  ctx: Context & { rootKey: RootKeyPrincipal },
  apiId: string,
): Promise<Uint8Array> {
  const { workspaceId } = ctx.rootKey;
  const dataKey = await loadDataKey(vaultStore(ctx.em), workspaceId, ctx.vaultMasterKey);
  if (!dataKey) throw preconditionFailed(PRECONDITION_DETAILS.vaultNotSetUp);
  requirePermissions(ctx.rootKey, [apiPermission(apiId, 'decrypt_key')]);
  const api = await findApi(ctx.em, workspaceId, apiId);
  if (!api) throw apiNotFound(apiId);
  if (!api.encryptionEnabled) throw preconditionFailed(PRECONDITION_DETAILS.encryptionDisabled);
  return dataKey;
}
