import { notFound, type PermissionTuple } from '@keyplane/core';
import { findKeyRecord, type KeyRecord } from '@keyplane/db';
import type { Context } from '../context.ts';
import { apiPermission, type RootKeyPrincipal, requirePermissions } from './auth.ts';

/**
 * The reference order for key procedures: look the key up (404 if it is not a live key of this
 * workspace), then check the root key's permission on the key's API (403), together with any
 * other permissions the procedure needs, so that one 403 names everything missing.
 */
export async function loadAuthorizedKey(
  ctx: Context & { rootKey: RootKeyPrincipal },
  keyId: string,
  actions: readonly string[],
  alsoRequired: readonly PermissionTuple[] = [],
): Promise<KeyRecord> {
  const key = await findKeyRecord(ctx.em, ctx.rootKey.workspaceId, keyId);
  if (!key) throw notFound('key', `The key '${keyId}' was not found.`);
  requirePermissions(ctx.rootKey, [...actions.map((action) => apiPermission(key.apiId, action)), ...alsoRequired]);
  return key;
}
