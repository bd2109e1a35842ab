/**
 * What one workspace may hold (docs/contract.md#limits). Each bound keeps what a request can cost
 * from growing with what a tenant has created: every wildcard override is matched against every
 * identifier without one of its own, every permission can end up in a verification's answer, and
 * every row is counted, listed and cached. Operators raise them (docs/operations.md#limits).
 */
export interface WorkspaceLimits {
  /** Live rate-limit namespaces of a workspace. */
  ratelimitNamespaces: number;
  /** Live overrides of a namespace, exact and wildcard together. */
  ratelimitOverrides: number;
  /** Live wildcard overrides of a namespace. */
  ratelimitWildcardOverrides: number;
  /** Roles of a workspace. */
  roles: number;
  /** Permissions of a workspace. */
  permissions: number;
}

export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  ratelimitNamespaces: 1000,
  ratelimitOverrides: 10_000,
  ratelimitWildcardOverrides: 100,
  roles: 1000,
  permissions: 10_000,
};

/**
 * What one key may hold, as the lists a request may give it: `keys.addRoles` and
 * `keys.addPermissions` cannot grow a key past what `keys.setRoles` and `keys.setPermissions` may set.
 */
export const MAX_KEY_ROLES = 100;
export const MAX_KEY_PERMISSIONS = 1000;
/**
 * The permissions a key's roles hold between them, each role's counted: what `keys.setRoles` and
 * its siblings answer (every role with its permissions), and with the key's direct permissions
 * what every verification of it answers and every node caches. 100 roles of 1000 permissions
 * would make each such answer 100,000 entries long. Checked when a key is given roles and when a
 * role that keys hold grows.
 */
export const MAX_KEY_ROLE_PERMISSIONS = 2000;

/** What a bound counts, for the 403 that names it. */
export type LimitedResource = keyof WorkspaceLimits | 'keyRoles' | 'keyPermissions' | 'keyRolePermissions';
