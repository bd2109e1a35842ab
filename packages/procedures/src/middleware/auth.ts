import {
  forbidden,
  hashesEqual,
  hashKey,
  missingPermissions,
  type PermissionTuple,
  unauthorized,
} from '@keyplane/core';
import { findRootKeyByHash } from '@keyplane/db';
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
  const rootKey = await findRootKeyByHash(ctx.em, hash);
  if (!rootKey || !hashesEqual(rootKey.hash, hash)) {
    throw unauthorized('The provided root key is invalid. We could not find the requested key.');
  }
  if (rootKey.revokedAt !== null) throw unauthorized('The provided root key has been revoked.');
  if (rootKey.expiresAt !== null && rootKey.expiresAt < Date.now()) {
    throw unauthorized('The provided root key has expired.');
  }
  return { rootKeyId: rootKey.id, workspaceId: rootKey.workspaceId, permissions: rootKey.permissions };
}

/** Throws 403 naming every required permission the root key lacks. */
export function requirePermissions(principal: RootKeyPrincipal, required: readonly PermissionTuple[]): void {
  const missing = missingPermissions(principal.permissions, required);
  if (missing.length > 0) throw forbidden(missing);
}

/** `api.<apiId>.<action>`: granted by that exact tuple or by `api.*.<action>` (either spelling of `api`). */
export function apiPermission(apiId: string, action: string): PermissionTuple {
  return { resourceType: 'api', resourceId: apiId, action };
}
