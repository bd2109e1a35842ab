import { keyNotFound, type PermissionTuple } from '@keyplane/core';
import { findKeyRecord, type KeyRecord, type LinkOperation } from '@keyplane/db';
import type { Context } from '../context.ts';
import { apiPermission, type RootKeyPrincipal, rbacPermission, requirePermissions } from './auth.ts';

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
  if (!key) throw keyNotFound(keyId);
  requirePermissions(ctx.rootKey, [...actions.map((action) => apiPermission(key.apiId, action)), ...alsoRequired]);
  return key;
}

const LINK_ACTIONS = {
  roles: { add: 'add_role_to_key', remove: 'remove_role_from_key' },
  permissions: { add: 'add_permission_to_key', remove: 'remove_permission_from_key' },
} as const;

/**
 * The `rbac.*` permissions a change to a key's roles or direct permissions needs after its
 * creation, the same on every path: adding needs the add action, removing the remove action, and
 * setting (which may do both) both.
 */
export function keyLinkPermissions(changes: { roles?: LinkOperation; permissions?: LinkOperation }): PermissionTuple[] {
  return (['roles', 'permissions'] as const).flatMap((links) => {
    const operation = changes[links];
    if (operation === undefined) return [];
    const { add, remove } = LINK_ACTIONS[links];
    const actions = [...(operation === 'remove' ? [] : [add]), ...(operation === 'add' ? [] : [remove])];
    return actions.map((action) => rbacPermission(action));
  });
}
