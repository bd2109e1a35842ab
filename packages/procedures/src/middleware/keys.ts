import { isGranted, keyNotFound, type PermissionTuple } from '@keyplane/core';
import { findKeyRecord, type KeyRecord, type LinkOperation } from '@keyplane/db';
import type { Context } from '../context.ts';
import { apiPermission, authorizeFound, type RootKeyPrincipal, rbacPermission } from './auth.ts';

/**
 * A key procedure's key (docs/contract.md#authorization-order): the live key of this workspace on
 * whose API the root key holds every one of `actions`, with `alsoRequired`, else one 403 naming
 * everything missing. A 404 only for a caller holding `actions` on every API; to any other, a key
 * that does not exist and one of an API whose keys it may not read are the same 403, naming the
 * wildcards (`api.*.<action>`) and not the key's API.
 */
export async function loadAuthorizedKey(
  ctx: Context & { rootKey: RootKeyPrincipal },
  keyId: string,
  actions: readonly string[],
  alsoRequired: readonly PermissionTuple[] = [],
): Promise<KeyRecord> {
  return authorizeFound(ctx.rootKey, {
    found: await findKeyRecord(ctx.em, ctx.rootKey.workspaceId, keyId),
    notFound: () => keyNotFound(keyId),
    required: (key) => actions.map((action) => apiPermission(key.apiId, action)),
    wildcards: actions.map((action) => apiPermission('*', action)),
    visible: (key) => isGranted(ctx.rootKey.permissions, apiPermission(key.apiId, 'read_key')),
    alsoRequired,
  });
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
