import type { ChangeLog } from '@keyplane/caches';
import { type KeyCreationStore, type NewKey, newId, type WorkspaceLimits } from '@keyplane/core';
import { findApi } from './apis.ts';
import { RowNotFound } from './errors.ts';
import { lockWorkspaceBounds, requireKeyRolesWithinLimit, requireWithinLimit } from './limits.ts';
import { type EntityManager, sql, typed, unnestAs } from './sql.ts';
import { vaultStore } from './vault.ts';
import { enqueueKeyEvent } from './webhooks.ts';

// Still named here for the modules that configure limits on identities too.
export type { KeyRatelimit } from '@keyplane/core';

/**
 * What core's createKey reads and writes, on the transaction `tx`; what changes is announced on
 * `changeLog`. Missing permission slugs are created within the workspace's `workspaceLimits`.
 */
export function keyCreationStore(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceLimits: WorkspaceLimits,
): KeyCreationStore {
  return {
    ...vaultStore(tx),
    findApi: (workspaceId, apiId) => findApi(tx, workspaceId, apiId),
    insertKey: (key) => insertKey(tx, changeLog, key, workspaceLimits),
  };
}

/**
 * Inserts a key with everything attached to it: its limits, its roles (every one must exist), its
 * permissions and its identity (created when missing). Inside the caller's transaction, so a
 * failure (an unknown role) leaves nothing behind.
 */
async function insertKey(
  tx: EntityManager,
  changeLog: ChangeLog,
  key: NewKey,
  workspaceLimits: WorkspaceLimits,
): Promise<void> {
  const roleIds = await findRoleIds(tx, key.workspaceId, key.roles ?? []);
  const permissionIds = await ensurePermissions(
    tx,
    key.workspaceId,
    key.permissions ?? [],
    workspaceLimits.permissions,
  );
  const identityId = key.externalId ? await ensureIdentity(tx, key.workspaceId, key.externalId) : null;
  const db = typed(tx);
  const now = new Date();
  const refill = key.credits?.refill;
  await db
    .insertInto('keys')
    .values({
      id: key.id,
      workspace_id: key.workspaceId,
      api_id: key.apiId,
      hash: key.hash,
      start: key.start,
      name: key.name ?? null,
      identity_id: identityId,
      meta: key.meta ?? null,
      expires_at: key.expiresAt ?? null,
      enabled: key.enabled,
      credits_remaining: key.credits?.remaining ?? null,
      refill_interval: refill?.interval ?? null,
      refill_amount: refill?.amount ?? null,
      refill_day: refill?.refillDay ?? null,
      // The first refill comes at the next boundary.
      last_refill_at: refill ? now : null,
      ciphertext: key.ciphertext,
      created_at: now,
    })
    .execute();
  const limits = key.ratelimits ?? [];
  if (limits.length > 0) {
    await db
      .insertInto('ratelimits')
      .values(
        limits.map((limit) => ({
          id: newId('ratelimit'),
          workspace_id: key.workspaceId,
          key_id: key.id,
          name: limit.name,
          limit: limit.limit,
          duration_ms: limit.durationMs,
          auto_apply: limit.autoApply,
          created_at: now,
        })),
      )
      .execute();
  }
  if (roleIds.length > 0) {
    await db
      .insertInto('keys_roles')
      .values(roleIds.map((roleId) => ({ key_id: key.id, role_id: roleId, created_at: now })))
      .execute();
    await requireKeyRolesWithinLimit(tx, [key.id]);
  }
  if (permissionIds.length > 0) {
    await db
      .insertInto('keys_permissions')
      .values(permissionIds.map((permissionId) => ({ key_id: key.id, permission_id: permissionId, created_at: now })))
      .execute();
  }
  // A node may have cached this hash as unknown.
  await changeLog.announce(tx, { workspaceId: key.workspaceId, keyHashes: [key.hash] });
  await enqueueKeyEvent(tx, 'key.created', key, {
    name: key.name ?? null,
    externalId: key.externalId ?? null,
    expires: key.expiresAt?.getTime() ?? null,
    enabled: key.enabled,
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
  const found = await typed(em)
    .selectFrom('roles')
    .select(['id', 'name'])
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb('name', '=', eb.fn.any(eb.val(unique))))
    .forKeyShare()
    .execute();
  const missing = unique.find((name) => !found.some((role) => role.name === name));
  if (missing !== undefined) throw new RowNotFound('role', missing);
  return found.map((role) => role.id);
}

/**
 * Ids of the permissions with these slugs, creating the missing ones (name = slug), locked against
 * deletion for the transaction as in findPermissions. The workspace may hold at most `limit`
 * permissions: past it nothing is created (LimitReached). Slugs that all exist take no lock.
 */
export async function ensurePermissions(
  em: EntityManager,
  workspaceId: string,
  slugs: string[],
  limit: number,
): Promise<string[]> {
  if (slugs.length === 0) return [];
  // Sorted: concurrent inserts of the same new slugs take their locks in one order and cannot deadlock.
  const unique = [...new Set(slugs)].sort();
  const existing = await permissionsWithSlugs(em, workspaceId, unique);
  if (existing.length === unique.length) return existing.map((permission) => permission.id);
  await lockWorkspaceBounds(em, workspaceId);
  const ids = unique.map(() => newId('permission'));
  const created = await typed(em)
    .insertInto('permissions')
    .columns(['id', 'workspace_id', 'name', 'slug', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom(unnestAs('t', { id: ['text', ids], slug: ['text', unique] }))
        .select([
          't.id',
          eb.val(workspaceId).as('workspace_id'),
          't.slug as name',
          't.slug',
          sql<Date>`now()`.as('created_at'),
        ]),
    )
    .onConflict((oc) => oc.columns(['workspace_id', 'slug']).doNothing())
    .returning('id')
    .execute();
  if (created.length > 0) {
    requireWithinLimit('permissions', limit, await countPermissions(em, workspaceId), created.length);
  }
  return (await permissionsWithSlugs(em, workspaceId, unique)).map((permission) => permission.id);
}

/** The workspace's permissions with these slugs, locked against deletion as in findPermissions. */
function permissionsWithSlugs(em: EntityManager, workspaceId: string, slugs: string[]) {
  return typed(em)
    .selectFrom('permissions')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb('slug', '=', eb.fn.any(eb.val(slugs))))
    .forKeyShare()
    .execute();
}

/** How many permissions the workspace holds. */
export async function countPermissions(em: EntityManager, workspaceId: string): Promise<number> {
  const counted = await typed(em)
    .selectFrom('permissions')
    .select(sql<number>`count(*)::int`.as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return counted.total;
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
    await typed(em)
      .insertInto('identities')
      .columns(['id', 'workspace_id', 'external_id', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(unnestAs('t', { id: ['text', ids], external_id: ['text', missing] }))
          .select(['t.id', eb.val(workspaceId).as('workspace_id'), 't.external_id', sql<Date>`now()`.as('created_at')]),
      )
      .onConflict((oc) => oc.columns(['workspace_id', 'external_id']).where('deleted_at', 'is', null).doNothing())
      .execute();
    const found = await typed(em)
      .selectFrom('identities')
      .select(['id', 'external_id'])
      .where('workspace_id', '=', workspaceId)
      .where((eb) => eb('external_id', '=', eb.fn.any(eb.val(missing))))
      .where('deleted_at', 'is', null)
      .forShare()
      .execute();
    for (const identity of found) resolved.set(identity.external_id, identity.id);
  }
  return resolved;
}
