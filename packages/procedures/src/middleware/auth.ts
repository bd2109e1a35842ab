import {
  type DomainError,
  forbidden,
  formatPermission,
  hashKey,
  isGranted,
  isGrantedOnAny,
  type MaybePromise,
  missingPermissions,
  openSignedSession,
  type PermissionTuple,
  parsePermission,
  unauthorized,
  type WorkspaceLimits,
} from '@keyplane/core';
import { findDashboardSession, findRootKeyByHash, type PermissionCreation, type RootKeyRecord } from '@keyplane/db';
import type { Context } from '../context.ts';

export interface RootKeyPrincipal {
  rootKeyId: string;
  workspaceId: string;
  permissions: readonly string[];
  /** Unix ms when the root key expires (for a dashboard session: its root key's); null: never. */
  expiresAt: number | null;
  /** The workspace's API rate limit per minute, applied to root-key and dashboard-session requests; null: none. */
  apiRequestsPerMinute: number | null;
  /** Set when the caller is the dashboard acting for a signed-in operator. */
  session?: { rootKeyName: string | null; expiresAt: number };
}

export const MANAGE_ROOT_KEYS: PermissionTuple = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'manage_root_keys',
};

/**
 * The caller: the root key of the Authorization header or, when there is none, the operator of
 * the dashboard session the request presented.
 */
export function authenticate(ctx: Context): MaybePromise<RootKeyPrincipal> {
  const presented = ctx.session?.presented;
  if (ctx.authorization === undefined && presented !== undefined) return authenticateSession(ctx, presented);
  if (ctx.authorization === undefined && ctx.session !== undefined) throw unauthorized(NOT_SIGNED_IN);
  return authenticateRootKey(ctx);
}

// The dashboard shows these on its sign-in page: each says why the session is over.
const NOT_SIGNED_IN = 'You are not signed in: the browser holds no dashboard session. Sign in with a root key.';
const SESSION_ENDED =
  'Your dashboard session has expired or ended (signed out, or this server no longer knows it). Sign in again.';
const ROOT_KEY_REVOKED =
  'Your dashboard session ended: the root key you signed in with was revoked. Sign in with another root key.';
const ROOT_KEY_EXPIRED =
  'Your dashboard session ended: the root key you signed in with has expired. Sign in with another root key.';

async function authenticateSession(ctx: Context, presented: string): Promise<RootKeyPrincipal> {
  const token = openSignedSession(ctx.services.sessionSigningKey, presented);
  if (token === undefined) throw unauthorized(SESSION_ENDED);
  const session = await findDashboardSession(ctx.em, hashKey(token));
  const now = ctx.services.now();
  if (!session) throw unauthorized(SESSION_ENDED);
  if (session.rootKeyRevokedAt !== null) throw unauthorized(ROOT_KEY_REVOKED);
  if (session.rootKeyExpiresAt !== null && session.rootKeyExpiresAt < now) throw unauthorized(ROOT_KEY_EXPIRED);
  ctx.services.rootKeyUsage.touch(session.rootKeyId, now);
  return {
    rootKeyId: session.rootKeyId,
    workspaceId: session.workspaceId,
    permissions: session.permissions,
    expiresAt: session.rootKeyExpiresAt,
    // A session is one more client of the workspace: a cookie must not be a way around its limit.
    apiRequestsPerMinute: session.apiRequestsPerMinute,
    session: { rootKeyName: session.rootKeyName, expiresAt: session.expiresAt },
  };
}

const BEARER = /^Bearer ([^\s]+)$/;

/** Resolves the Authorization header to a live root key, or throws the contract's 401s. */
export function authenticateRootKey(ctx: Context): MaybePromise<RootKeyPrincipal> {
  if (ctx.authorization === undefined || ctx.authorization.trim() === '') {
    throw unauthorized('The Authorization header is missing. Send `Authorization: Bearer <ROOT_KEY>`.');
  }
  const token = BEARER.exec(ctx.authorization.trim())?.[1];
  if (!token) throw unauthorized('The Authorization header must have the form `Bearer <ROOT_KEY>`.');
  return authenticateRootKeyToken(ctx, token);
}

/**
 * A root key presented as such (a Bearer token, or typed into the dashboard's sign-in). A cached
 * root key is answered at once, not as a promise: every root-key call runs this.
 */
export function authenticateRootKeyToken(ctx: Context, token: string): MaybePromise<RootKeyPrincipal> {
  const hash = hashKey(token);
  const rootKey = ctx.services.rootKeyCache.lookUp(hash, async () => (await findRootKeyByHash(ctx.em, hash)) ?? null);
  return rootKey instanceof Promise ? rootKey.then((found) => principalOf(ctx, found)) : principalOf(ctx, rootKey);
}

/** The principal of a root key found by its hash (the lookup compared the hashes), or the contract's 401s. */
function principalOf(ctx: Context, rootKey: RootKeyRecord | null): RootKeyPrincipal {
  if (!rootKey) throw unauthorized('The provided root key is invalid. We could not find the requested key.');
  if (rootKey.revokedAt !== null) throw unauthorized('The provided root key has been revoked.');
  const now = Date.now();
  if (rootKey.expiresAt !== null && rootKey.expiresAt < now) throw unauthorized('The provided root key has expired.');
  ctx.services.rootKeyUsage.touch(rootKey.id, now);
  return {
    rootKeyId: rootKey.id,
    workspaceId: rootKey.workspaceId,
    permissions: rootKey.permissions,
    expiresAt: rootKey.expiresAt,
    apiRequestsPerMinute: rootKey.apiRequestsPerMinute,
  };
}

/** Throws 403 naming every required permission the root key lacks. */
export function requirePermissions(principal: RootKeyPrincipal, required: readonly PermissionTuple[]): void {
  if (required.every((tuple) => isGranted(principal.permissions, tuple))) return;
  throw forbidden(missingPermissions(principal.permissions, required));
}

/** Whether any grant, for any API or all of them, allows this action. */
export function hasAnyApiGrant(principal: RootKeyPrincipal, action: string): boolean {
  return isGrantedOnAny(principal.permissions, 'api', action);
}

/**
 * The ids of the resources of a type on which the grants allow `action`: undefined when a `*`
 * grant allows it on all of them, else the ids the grants name (none at all: an empty list).
 */
export function grantedResourceIds(
  principal: RootKeyPrincipal,
  resourceType: PermissionTuple['resourceType'],
  action: string,
): string[] | undefined {
  const ids: string[] = [];
  for (const grant of principal.permissions) {
    const tuple = parsePermission(grant);
    if (tuple?.resourceType !== resourceType || tuple.action !== action) continue;
    if (tuple.resourceId === '*') return undefined;
    ids.push(tuple.resourceId);
  }
  return ids;
}

/** `api.<apiId>.<action>`: granted by that exact tuple or by `api.*.<action>` (either spelling of `api`). */
export function apiPermission(apiId: string, action: string): PermissionTuple {
  return { resourceType: 'api', resourceId: apiId, action };
}

/** `rbac.*.<action>`: roles and permissions are workspace-wide, so rbac grants name no instance. */
export function rbacPermission(action: string): PermissionTuple {
  return { resourceType: 'rbac', resourceId: '*', action };
}

/** Creating a permission slug the workspace does not have yet is a permission of its own, on every path. */
export function requireCreatePermission(principal: RootKeyPrincipal): void {
  requirePermissions(principal, [rbacPermission('create_permission')]);
}

/**
 * What naming permission slugs needs before any is looked up: nothing for a caller that may read
 * the workspace's permissions (`rbac.*.read_permission`; it is asked for `create_permission` once a
 * slug turns out to be new), and `rbac.*.create_permission` for any other, whatever exists, so
 * that no answer tells it which slugs do (docs/contract.md#authorization-order).
 */
export function slugCreationUpFront(
  principal: RootKeyPrincipal,
  slugs: readonly string[] | undefined,
): PermissionTuple[] {
  if (slugs === undefined || slugs.length === 0) return [];
  return isGranted(principal.permissions, rbacPermission('read_permission'))
    ? []
    : [rbacPermission('create_permission')];
}

/** How a write that names permission slugs may create the missing ones: with `create_permission`, within the workspace's limit. */
export function permissionCreation(principal: RootKeyPrincipal, limits: WorkspaceLimits): PermissionCreation {
  return { allow: () => requireCreatePermission(principal), limit: limits.permissions };
}

/** `identity.<identityId>.<action>`: granted by that exact tuple or by `identity.*.<action>`. */
export function identityPermission(identityId: string, action: string): PermissionTuple {
  return { resourceType: 'identity', resourceId: identityId, action };
}

/** `ratelimit.<namespaceId>.<action>`: granted by that exact tuple or by `ratelimit.*.<action>`. */
export function ratelimitPermission(namespaceId: string, action: string): PermissionTuple {
  return { resourceType: 'ratelimit', resourceId: namespaceId, action };
}

/** `webhook.<endpointId>.<action>`: granted by that exact tuple or by `webhook.*.<action>`. */
export function webhookPermission(endpointId: string, action: string): PermissionTuple {
  return { resourceType: 'webhook', resourceId: endpointId, action };
}

/**
 * What the caller named and the lookup found (`found`), if it may act on it: else the 403 or 404
 * it may be told (docs/contract.md#authorization-order). A caller is told that something does not
 * exist only when it could act on it if it did: it holds every `wildcards` permission, or `named`,
 * the permissions on the very id it named. Otherwise a missing thing and one it may not see
 * (`visible`) get the same 403, naming wildcards and never an id it may not read: no answer depends
 * on what exists out of its reach. `alsoRequired` is named in every 403 where it is missing.
 */
export function authorizeFound<T>(
  principal: RootKeyPrincipal,
  lookup: {
    found: T | undefined;
    notFound: () => DomainError;
    /** The permissions on what was found. */
    required: (found: T) => readonly PermissionTuple[];
    /** The same permissions on every instance (`*`). */
    wildcards: readonly PermissionTuple[];
    /** Whether the caller may read what was found, and so be told which instance it lacks. */
    visible?: (found: T) => boolean;
    named?: readonly PermissionTuple[];
    alsoRequired?: readonly PermissionTuple[];
  },
): T {
  const { permissions } = principal;
  const lacking = (tuples: readonly PermissionTuple[]) => tuples.filter((tuple) => !isGranted(permissions, tuple));
  const alsoMissing = lacking(lookup.alsoRequired ?? []).map(formatPermission);
  const { found } = lookup;
  if (found !== undefined) {
    const missing = lacking(lookup.required(found));
    if (missing.length + alsoMissing.length === 0) return found;
    const named = lookup.visible?.(found) ? missing : missing.map((tuple) => ({ ...tuple, resourceId: '*' }));
    throw forbidden([...named.map(formatPermission), ...alsoMissing]);
  }
  const missingWildcards = lacking(lookup.wildcards);
  const couldAct = missingWildcards.length === 0 || (lookup.named !== undefined && lacking(lookup.named).length === 0);
  if (couldAct) throw lookup.notFound();
  throw forbidden([...missingWildcards.map(formatPermission), ...alsoMissing]);
}
