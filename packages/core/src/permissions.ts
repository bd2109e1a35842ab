/**
 * Root-key permissions are tuples `resourceType.resourceId.action`. `api` and `apis` name the same
 * resource type, and a resourceId of `*` in a grant covers every instance.
 */
export const ROOT_KEY_ACTIONS = {
  api: [
    'create_api',
    'read_api',
    'update_api',
    'delete_api',
    'create_key',
    'read_key',
    'update_key',
    'delete_key',
    'verify_key',
    'encrypt_key',
    'decrypt_key',
    'read_analytics',
  ],
  identity: ['create_identity', 'read_identity', 'update_identity', 'delete_identity'],
  rbac: [
    'create_permission',
    'read_permission',
    'delete_permission',
    'create_role',
    'read_role',
    'delete_role',
    'add_permission_to_key',
    'remove_permission_from_key',
    'add_role_to_key',
    'remove_role_from_key',
    'add_permission_to_role',
    'remove_permission_from_role',
  ],
  ratelimit: [
    'limit',
    'create_namespace',
    'read_namespace',
    'delete_namespace',
    'set_override',
    'read_override',
    'delete_override',
    'read_analytics',
  ],
  webhook: ['create_endpoint', 'read_endpoint', 'update_endpoint', 'delete_endpoint'],
  // Customer key portals (docs/portal.md): reading one includes its sessions.
  portal: [
    'create_portal',
    'read_portal',
    'update_portal',
    'delete_portal',
    'create_portal_session',
    'revoke_portal_session',
  ],
  workspace: ['read_root_keys', 'manage_root_keys', 'read_audit_log', 'read_members', 'manage_members'],
} as const;

/**
 * Actions a grant of another action includes: managing root keys reads them and the audit log, as
 * it did before the reads were actions of their own; managing people reads them
 * (docs/decisions/0018-team-roles-as-permission-lists.md).
 */
const IMPLIED_ACTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['workspace.manage_root_keys', ['read_root_keys', 'read_audit_log']],
  ['workspace.manage_members', ['read_members']],
]);

export type ResourceType = keyof typeof ROOT_KEY_ACTIONS;

export interface PermissionTuple {
  resourceType: ResourceType;
  /** A concrete id, or `*` for every instance. */
  resourceId: string;
  action: string;
}

// A Map: the first segment is the caller's text, and `constructor` is no resource type.
const RESOURCE_TYPE_ALIASES = new Map<string, ResourceType>([
  ['api', 'api'],
  ['apis', 'api'],
  ['identity', 'identity'],
  ['rbac', 'rbac'],
  ['ratelimit', 'ratelimit'],
  ['webhook', 'webhook'],
  ['webhooks', 'webhook'],
  ['portal', 'portal'],
  ['workspace', 'workspace'],
]);

const SEGMENT = /^[a-zA-Z0-9_*]+$/;

// Root keys hold few distinct grants and every request checks them: parse each string once.
const parsedGrants = new Map<string, PermissionTuple | null>();
const MAX_PARSED_GRANTS = 10_000;

export function parsePermission(permission: string): PermissionTuple | null {
  const known = parsedGrants.get(permission);
  if (known !== undefined) return known;
  const parsed = parseUncached(permission);
  if (parsedGrants.size >= MAX_PARSED_GRANTS) parsedGrants.clear();
  parsedGrants.set(permission, parsed);
  return parsed;
}

function parseUncached(permission: string): PermissionTuple | null {
  const parts = permission.split('.');
  if (parts.length !== 3) return null;
  const [type, resourceId, action] = parts as [string, string, string];
  const resourceType = RESOURCE_TYPE_ALIASES.get(type);
  if (!resourceType || !SEGMENT.test(resourceId) || !SEGMENT.test(action)) return null;
  return { resourceType, resourceId, action };
}

/** A permission a root key may be granted: well formed, with an action its resource type knows. */
export function isGrantablePermission(permission: string): boolean {
  const tuple = parsePermission(permission);
  if (!tuple) return false;
  const actions: readonly string[] = ROOT_KEY_ACTIONS[tuple.resourceType];
  return actions.includes(tuple.action);
}

export function formatPermission(tuple: PermissionTuple): string {
  return `${tuple.resourceType}.${tuple.resourceId}.${tuple.action}`;
}

/** Every permission with a `*` resource: what a bootstrap root key holds. */
export function allRootKeyPermissions(): string[] {
  return Object.entries(ROOT_KEY_ACTIONS).flatMap(([type, actions]) => actions.map((action) => `${type}.*.${action}`));
}

/** The resource ids a root key's grants allow, by resource type and action. */
type GrantIndex = Map<string, Map<string, Set<string>>>;

// Every request checks its root key's grants, which stay the same array while the key is cached:
// indexed once per array, a check is two lookups instead of a pass over every grant.
const grantIndexes = new WeakMap<readonly string[], GrantIndex>();

function grantIndexOf(grants: readonly string[]): GrantIndex {
  let index = grantIndexes.get(grants);
  if (index) return index;
  index = new Map();
  for (const grant of grants) {
    const held = parsePermission(grant);
    if (!held) continue;
    const actions = index.get(held.resourceType) ?? new Map<string, Set<string>>();
    index.set(held.resourceType, actions);
    const implied = IMPLIED_ACTIONS.get(`${held.resourceType}.${held.action}`) ?? [];
    for (const action of [held.action, ...implied]) {
      const ids = actions.get(action) ?? new Set<string>();
      actions.set(action, ids);
      ids.add(held.resourceId);
    }
  }
  grantIndexes.set(grants, index);
  return index;
}

export function isGranted(grants: readonly string[], required: PermissionTuple): boolean {
  const ids = grantIndexOf(grants).get(required.resourceType)?.get(required.action);
  return ids !== undefined && (ids.has('*') || ids.has(required.resourceId));
}

/** Whether the grants allow `action` on some resource of the type (one named, or all of them). */
export function isGrantedOnAny(grants: readonly string[], resourceType: ResourceType, action: string): boolean {
  return (grantIndexOf(grants).get(resourceType)?.get(action)?.size ?? 0) > 0;
}

/** The required permissions the grants do not cover, formatted for an error message. */
export function missingPermissions(grants: readonly string[], required: readonly PermissionTuple[]): string[] {
  return required.filter((tuple) => !isGranted(grants, tuple)).map(formatPermission);
}

/**
 * Those of a root key's stored permissions the grants do not cover, formatted for an error message:
 * what a caller lacks to grant, change or revoke that key. Text that is not a permission counts as
 * held only where the grants hold the same text.
 */
export function permissionsNotHeld(grants: readonly string[], permissions: readonly string[]): string[] {
  const missing = permissions.flatMap((permission) => {
    const tuple = parsePermission(permission);
    if (!tuple) return grants.includes(permission) ? [] : [permission];
    return isGranted(grants, tuple) ? [] : [formatPermission(tuple)];
  });
  return [...new Set(missing)];
}
