import {
  type DomainError,
  forbidden,
  formatPermission,
  hashKey,
  isGranted,
  isGrantedOnAny,
  type MaybePromise,
  type MemberManager,
  missingPermissions,
  openSignedSession,
  PERSON_SESSION_IDLE_MS,
  PERSON_SESSION_TOUCH_INTERVAL_MS,
  type PermissionTuple,
  parsePermission,
  rolePermissions,
  TEAM_ROLES,
  type TeamRole,
  unauthorized,
  type WorkspaceLimits,
} from '@keyplane/core';
import {
  findDashboardSession,
  findRootKeyByHash,
  findUserSession,
  type PermissionCreation,
  type RootKeyRecord,
  touchUserSession,
} from '@keyplane/db';
import type { Context } from '../context.ts';

/** A person signed in to the dashboard with their account (docs/team-accounts.md). */
export interface PersonActor {
  userId: string;
  email: string;
  name: string;
  role: TeamRole;
  sessionId: string;
  /** Unix ms when the session ends unless used again (idle), and at the latest (absolute). */
  idleExpiresAt: number;
  absoluteExpiresAt: number;
}

/**
 * Who is calling: a root key (the Authorization header, or a dashboard session opened with one), or
 * a person signed in to their account, whose permissions are their role's. Both pass the same checks.
 */
export interface RootKeyPrincipal {
  /** Null for a person. */
  rootKeyId: string | null;
  workspaceId: string;
  permissions: readonly string[];
  /** Unix ms when the root key expires (for a dashboard session: its root key's); null: never. */
  expiresAt: number | null;
  /** The workspace's API rate limit per minute, applied to root-key and dashboard-session requests; null: none. */
  apiRequestsPerMinute: number | null;
  /** Set when the caller is the dashboard acting for an operator signed in with a root key. */
  session?: { rootKeyName: string | null; expiresAt: number };
  /** Set when the caller is a person signed in to their account. */
  person?: PersonActor;
}

/** A root key itself, as its token authenticates it. */
export type RootKeyTokenPrincipal = RootKeyPrincipal & { rootKeyId: string };

/** Who manages people, as the rules of core/team/roles.ts judge them. */
export function memberManagerOf(principal: RootKeyPrincipal): MemberManager {
  return principal.person
    ? { kind: 'user', userId: principal.person.userId, role: principal.person.role }
    : { kind: 'rootKey', permissions: principal.permissions };
}

/** Reading the workspace's people and invitations (viewers hold it; `manage_members` implies it). */
export const READ_MEMBERS: PermissionTuple = { resourceType: 'workspace', resourceId: '*', action: 'read_members' };

export const MANAGE_ROOT_KEYS: PermissionTuple = {
  resourceType: 'workspace',
  resourceId: '*',
  action: 'manage_root_keys',
};

/** Reading the root keys (never their secrets); `manage_root_keys` includes it (core/permissions.ts). */
export const READ_ROOT_KEYS: PermissionTuple = { resourceType: 'workspace', resourceId: '*', action: 'read_root_keys' };

/** Reading the audit log (what of it, auditVisibility says); `manage_root_keys` includes it. */
export const READ_AUDIT_LOG: PermissionTuple = { resourceType: 'workspace', resourceId: '*', action: 'read_audit_log' };

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
const PERSON_SESSION_ENDED =
  'Your session has ended: it expired, you signed out, or your access to this workspace changed. Sign in again.';

// Each role's permissions, computed once: every request of a person reads them.
const ROLE_GRANTS = new Map<TeamRole, readonly string[]>(
  TEAM_ROLES.map((role) => [role, Object.freeze(rolePermissions(role))]),
);
const grantsOfRole = (role: TeamRole): readonly string[] => ROLE_GRANTS.get(role) ?? [];

async function authenticateSession(ctx: Context, presented: string): Promise<RootKeyPrincipal> {
  const opened = openSignedSession(ctx.services.sessionSigningKey, presented);
  if (opened === undefined) throw unauthorized(SESSION_ENDED);
  if (opened.kind === 'person') return authenticatePersonSession(ctx, opened.token);
  const session = await findDashboardSession(ctx.em, hashKey(opened.token));
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

/**
 * A person's session, read from the database on every request with their role as it is now: a
 * removal, a role change or a password reset holds on every node from the moment it commits.
 */
async function authenticatePersonSession(ctx: Context, token: string): Promise<RootKeyPrincipal> {
  const session = await findUserSession(ctx.em, hashKey(token));
  if (!session) throw unauthorized(PERSON_SESSION_ENDED);
  const now = ctx.services.now();
  let idleExpiresAt = session.idleExpiresAt;
  if (now - session.lastSeenAt >= PERSON_SESSION_TOUCH_INTERVAL_MS) {
    await touchUserSession(ctx.em, session.sessionId, PERSON_SESSION_IDLE_MS);
    idleExpiresAt = Math.min(now + PERSON_SESSION_IDLE_MS, session.absoluteExpiresAt);
  }
  return {
    rootKeyId: null,
    workspaceId: session.workspaceId,
    permissions: grantsOfRole(session.role),
    expiresAt: null,
    apiRequestsPerMinute: session.apiRequestsPerMinute,
    person: {
      userId: session.userId,
      email: session.email,
      name: session.name,
      role: session.role,
      sessionId: session.sessionId,
      idleExpiresAt,
      absoluteExpiresAt: session.absoluteExpiresAt,
    },
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
export function authenticateRootKeyToken(ctx: Context, token: string): MaybePromise<RootKeyTokenPrincipal> {
  const hash = hashKey(token);
  const rootKey = ctx.services.rootKeyCache.lookUp(hash, async () => (await findRootKeyByHash(ctx.em, hash)) ?? null);
  return rootKey instanceof Promise ? rootKey.then((found) => principalOf(ctx, found)) : principalOf(ctx, rootKey);
}

/** The principal of a root key found by its hash (the lookup compared the hashes), or the contract's 401s. */
function principalOf(ctx: Context, rootKey: RootKeyRecord | null): RootKeyTokenPrincipal {
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

/** `portal.<portalId>.<action>`: granted by that exact tuple or by `portal.*.<action>`. */
export function portalPermission(portalId: string, action: string): PermissionTuple {
  return { resourceType: 'portal', resourceId: portalId, action };
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
