import {
  DEFAULT_KEY_BYTES,
  encryptKeyMaterial,
  generateKey,
  keyCreationPrecondition,
  newId,
  notFound,
} from '@keyplane/core';
import { findApi } from './apis.ts';
import { Key, KeyPermission, KeyRole, Ratelimit } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import { type EntityManager, rows, sql } from './sql.ts';
import { loadDataKey } from './vault.ts';

export interface KeyCredits {
  /** null: unlimited. */
  remaining: number | null;
  refill?: { interval: 'daily' | 'monthly'; amount: number; refillDay: number | null };
}

export interface KeyRatelimit {
  name: string;
  limit: number;
  durationMs: number;
  autoApply: boolean;
}

export interface CreateKeyParams {
  apiId: string;
  prefix?: string;
  name?: string;
  byteLength?: number;
  externalId?: string;
  meta?: Record<string, unknown>;
  roles?: string[];
  permissions?: string[];
  expiresAt?: Date;
  credits?: KeyCredits;
  ratelimits?: KeyRatelimit[];
  enabled: boolean;
  recoverable: boolean;
}

export interface KeyScope {
  workspaceId: string;
  vaultMasterKey?: Uint8Array;
}

/**
 * Creates a key with everything attached to it in one transaction: a failure (an unknown role, a
 * precondition) leaves nothing behind. Returns the plaintext, which is stored nowhere.
 */
export async function createKey(
  em: EntityManager,
  scope: KeyScope,
  params: CreateKeyParams,
): Promise<{ keyId: string; key: string }> {
  return em.transactional(async (tx) => {
    const api = await findApi(tx, scope.workspaceId, params.apiId);
    if (!api) throw notFound('api', `The API '${params.apiId}' was not found.`);
    const dataKey = params.recoverable ? await loadDataKey(tx, scope.workspaceId, scope.vaultMasterKey) : undefined;
    const unmet = keyCreationPrecondition({
      recoverable: params.recoverable,
      vaultReady: dataKey !== undefined,
      keyAuthEnabled: api.keyAuthEnabled,
      encryptionEnabled: api.encryptionEnabled,
    });
    if (unmet) throw unmet;

    const roleIds = await findRoleIds(tx, scope.workspaceId, params.roles ?? []);
    const permissionIds = await ensurePermissions(tx, scope.workspaceId, params.permissions ?? []);
    const identityId = params.externalId ? await ensureIdentity(tx, scope.workspaceId, params.externalId) : null;

    const keyId = newId('key');
    const material = generateKey({
      prefix: params.prefix ?? api.defaultPrefix,
      byteLength: params.byteLength ?? api.defaultBytes ?? DEFAULT_KEY_BYTES,
    });
    tx.create(Key, {
      id: keyId,
      workspace: scope.workspaceId,
      api: api.id,
      hash: material.hash,
      start: material.start,
      name: params.name ?? null,
      identity: identityId,
      meta: params.meta ?? null,
      expiresAt: params.expiresAt ?? null,
      enabled: params.enabled,
      creditsRemaining: params.credits?.remaining ?? null,
      refillInterval: params.credits?.refill?.interval ?? null,
      refillAmount: params.credits?.refill?.amount ?? null,
      refillDay: params.credits?.refill?.refillDay ?? null,
      lastRefillAt: params.credits?.refill ? new Date() : null,
      ciphertext: dataKey ? encryptKeyMaterial(dataKey, material.key, keyId) : null,
    });
    for (const limit of params.ratelimits ?? []) {
      tx.create(Ratelimit, { id: newId('ratelimit'), workspace: scope.workspaceId, key: keyId, ...limit });
    }
    for (const role of roleIds) tx.create(KeyRole, { key: keyId, role });
    for (const permission of permissionIds) tx.create(KeyPermission, { key: keyId, permission });
    await tx.flush();
    // A node may have cached this hash as unknown.
    await notifyInvalidation(tx, { workspaceId: scope.workspaceId, keyHashes: [material.hash] });
    return { keyId, key: material.key };
  });
}

/**
 * Ids of the named roles; every one must already exist in the workspace. The rows found stay
 * locked against deletion for the transaction (as in findPermissions), so a role deleted
 * concurrently is either not found (404) or deleted only after the links to it are made.
 */
export async function findRoleIds(em: EntityManager, workspaceId: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const unique = [...new Set(names)];
  const found = await rows(
    em,
    sql<{ id: string; name: string }>`
      select id, name from roles where workspace_id = ${workspaceId} and name = any(${unique}::text[])
      for key share`,
  );
  const missing = unique.find((name) => !found.some((role) => role.name === name));
  if (missing !== undefined) throw notFound('role', `Role '${missing}' was not found.`);
  return found.map((role) => role.id);
}

/**
 * Ids of the permissions with these slugs, creating the missing ones (name = slug), locked against
 * deletion for the transaction as in findPermissions.
 */
export async function ensurePermissions(em: EntityManager, workspaceId: string, slugs: string[]): Promise<string[]> {
  if (slugs.length === 0) return [];
  // Sorted: concurrent inserts of the same new slugs take their locks in one order and cannot deadlock.
  const unique = [...new Set(slugs)].sort();
  const ids = unique.map(() => newId('permission'));
  await rows(
    em,
    sql`
      insert into permissions (id, workspace_id, name, slug, created_at)
      select id, ${workspaceId}, slug, slug, now() from unnest(${ids}::text[], ${unique}::text[]) as t(id, slug)
      on conflict (workspace_id, slug) do nothing`,
  );
  const found = await rows(
    em,
    sql<{
      id: string;
    }>`select id from permissions where workspace_id = ${workspaceId} and slug = any(${unique}::text[])
       for key share`,
  );
  return found.map((permission) => permission.id);
}

/** The live identity with this externalId, created when there is none. */
export async function ensureIdentity(em: EntityManager, workspaceId: string, externalId: string): Promise<string> {
  const found = (await ensureIdentities(em, workspaceId, [externalId])).get(externalId);
  if (!found) throw new Error('identity upsert returned no row');
  return found;
}

/** The live identities with these externalIds (externalId to id), creating the missing ones. */
export async function ensureIdentities(
  em: EntityManager,
  workspaceId: string,
  externalIds: string[],
): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map();
  // Sorted, as in ensurePermissions.
  const unique = [...new Set(externalIds)].sort();
  const resolved = new Map<string, string>();
  // An identity deleted between the insert (which found it live) and the select is created anew
  // on the next round; the share lock then keeps the found ones live until this transaction ends.
  for (let round = 0; round < 3 && resolved.size < unique.length; round++) {
    const missing = unique.filter((externalId) => !resolved.has(externalId));
    const ids = missing.map(() => newId('identity'));
    await rows(
      em,
      sql`
        insert into identities (id, workspace_id, external_id, created_at)
        select id, ${workspaceId}, external_id, now() from unnest(${ids}::text[], ${missing}::text[]) as t(id, external_id)
        on conflict (workspace_id, external_id) where deleted_at is null do nothing`,
    );
    const found = await rows(
      em,
      sql<{ id: string; externalId: string }>`
        select id, external_id as "externalId" from identities
        where workspace_id = ${workspaceId} and external_id = any(${missing}::text[]) and deleted_at is null
        for share`,
    );
    for (const identity of found) resolved.set(identity.externalId, identity.id);
  }
  return resolved;
}
