import {
  forbidden,
  formatPermission,
  hashesEqual,
  hashKey,
  isGranted,
  missingPermissions,
  type PermissionTuple,
  parsePermission,
  unauthorized,
} from '@keyplane/core';
import { findRootKeyByHash, type RootKeyRecord } from '@keyplane/db';
import type { Context } from '../context.ts';

export interface RootKeyPrincipal {
  rootKeyId: string;
  workspaceId: string;
  permissions: string[];
}

const BEARER = /^Bearer ([^\s]+)$/;

/** Resolves the Authorization header to a live root key, or throws the contract's 401s. */
export async function authenticateRootKey(ctx: Context): Promise<RootKeyPrincipal> {
  if (ctx.authorization === undefined || ctx.authorization.trim() === '') {
    throw unauthorized('The Authorization header is missing. Send `Authorization: Bearer <ROOT_KEY>`.');
  }
  const token = BEARER.exec(ctx.authorization.trim())?.[1];
  if (!token) throw unauthorized('The Authorization header must have the form `Bearer <ROOT_KEY>`.');
  const hash = hashKey(token);
  const rootKey = await cachedRootKey(ctx, hash);
  if (!rootKey || !hashesEqual(rootKey.hash, hash)) {
    throw unauthorized('The provided root key is invalid. We could not find the requested key.');
  }
  if (rootKey.revokedAt !== null) throw unauthorized('The provided root key has been revoked.');
  if (rootKey.expiresAt !== null && rootKey.expiresAt < Date.now()) {
    throw unauthorized('The provided root key has expired.');
  }
  return { rootKeyId: rootKey.id, workspaceId: rootKey.workspaceId, permissions: rootKey.permissions };
}

async function cachedRootKey(ctx: Context, hash: string): Promise<RootKeyRecord | null> {
  const cache = ctx.services.rootKeyCache;
  const cached = cache.get(hash);
  if (cached) return cached.value;
  const generation = cache.generation;
  const found = (await findRootKeyByHash(ctx.em, hash)) ?? null;
  cache.set(hash, found, generation);
  return found;
}

/** Throws 403 naming every required permission the root key lacks. */
export function requirePermissions(principal: RootKeyPrincipal, required: readonly PermissionTuple[]): void {
  const missing = missingPermissions(principal.permissions, required);
  if (missing.length > 0) throw forbidden(missing);
}

/** Whether any grant, for any API or all of them, allows this action. */
export function hasAnyApiGrant(principal: RootKeyPrincipal, action: string): boolean {
  return principal.permissions.some((grant) => {
    const tuple = parsePermission(grant);
    return tuple?.resourceType === 'api' && tuple.action === action;
  });
}

/** `api.<apiId>.<action>`: granted by that exact tuple or by `api.*.<action>` (either spelling of `api`). */
export function apiPermission(apiId: string, action: string): PermissionTuple {
  return { resourceType: 'api', resourceId: apiId, action };
}

/** `rbac.*.<action>`: roles and permissions are workspace-wide, so rbac grants name no instance. */
export function rbacPermission(action: string): PermissionTuple {
  return { resourceType: 'rbac', resourceId: '*', action };
}

/** `identity.<identityId>.<action>`: granted by that exact tuple or by `identity.*.<action>`. */
export function identityPermission(identityId: string, action: string): PermissionTuple {
  return { resourceType: 'identity', resourceId: identityId, action };
}

/** `ratelimit.<namespaceId>.<action>`: granted by that exact tuple or by `ratelimit.*.<action>`. */
export function ratelimitPermission(namespaceId: string, action: string): PermissionTuple {
  return { resourceType: 'ratelimit', resourceId: namespaceId, action };
}

/**
 * Reading identities needs `identity.<id>.read_identity` (or the wildcard) for every one of them.
 * The 403 names the wildcard rather than the ids: the caller may have named an identity by its
 * externalId, and must not learn the internal id of one it may not read.
 */
export function requireIdentityReads(principal: RootKeyPrincipal, identityIds: readonly string[]): void {
  const unreadable = identityIds.some(
    (id) => !isGranted(principal.permissions, identityPermission(id, 'read_identity')),
  );
  if (unreadable) throw forbidden([formatPermission(identityPermission('*', 'read_identity'))]);
}
