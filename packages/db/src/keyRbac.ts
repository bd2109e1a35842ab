import type { ChangeLog, Invalidation } from '@keyplane/caches';
import { MAX_KEY_PERMISSIONS, MAX_KEY_ROLES, newId } from '@keyplane/core';
import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from './entities/database.ts';
import { RowNotFound } from './errors.ts';
import { directPermissionSlugsOf, roleNamesOf, rolePermissionsOf } from './keyFragments.ts';
import { findKeyRecord, type KeyRecord } from './keyRecords.ts';
import { ensurePermissions, findRoleIds } from './keys.ts';
import {
  lockWorkspaceBounds,
  requireHoldersWithinLimit,
  requireKeyRolesWithinLimit,
  requireWithinLimit,
} from './limits.ts';
import { type EntityManager, sql, typed, unnestAs } from './sql.ts';

export interface PermissionRecord {
  id: string;
  name: string;
  slug: string;
  description?: string;
}

export interface RoleRecord {
  id: string;
  name: string;
  description?: string;
  permissions: PermissionRecord[];
}

/** add: attach (idempotent); remove: detach (a no-op when not attached); set: exactly these. */
export type LinkOperation = 'add' | 'remove' | 'set';

/** What every node must forget after a change to this key. */
export function keyInvalidation(key: KeyRecord): Invalidation & { workspaceId: string } {
  return { workspaceId: key.workspaceId, keyHashes: [key.hash] };
}

/**
 * Locks the key's row for the rest of the transaction, so concurrent changes to one key apply one
 * after the other. It may have been deleted since the caller looked it up: then it is not found.
 */
export async function lockKey(em: EntityManager, key: KeyRecord): Promise<void> {
  const locked = await findKeyRecord(em, key.workspaceId, key.id, { forUpdate: true });
  if (!locked) throw new RowNotFound('key', key.id);
}

/**
 * The workspace's permissions with these slugs; slugs that do not exist are simply absent. Inside a
 * transaction the rows found stay locked against deletion (FOR KEY SHARE, the lock a foreign key
 * takes anyway), so linking them next cannot fail on one deleted meanwhile; one deleted before
 * the lock is simply not found.
 */
export async function findPermissions(
  em: EntityManager,
  workspaceId: string,
  slugs: string[],
): Promise<{ id: string; slug: string }[]> {
  if (slugs.length === 0) return [];
  return typed(em)
    .selectFrom('permissions')
    .select(['id', 'slug'])
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb('slug', '=', eb.fn.any(eb.val([...new Set(slugs)]))))
    .forKeyShare()
    .execute();
}

/** How a write may create the permission slugs it names that the workspace does not have yet. */
export interface PermissionCreation {
  /** Called with the missing slugs before any is created; throws to refuse them. */
  allow: (missing: string[]) => void;
  /** The most permissions the workspace may hold (docs/contract.md#limits). */
  limit: number;
}

/**
 * The ids of the permissions with these slugs, creating the missing ones after `creation` allowed
 * it and within its limit. Set-based: a few statements whatever the number of slugs.
 */
export async function resolvePermissions(
  em: EntityManager,
  workspaceId: string,
  slugs: string[],
  creation: PermissionCreation,
): Promise<string[]> {
  const existing = await findPermissions(em, workspaceId, slugs);
  const known = new Set(existing.map((permission) => permission.slug));
  const missing = [...new Set(slugs)].filter((slug) => !known.has(slug));
  if (missing.length === 0) return existing.map((permission) => permission.id);
  creation.allow(missing);
  return ensurePermissions(em, workspaceId, slugs, creation.limit);
}

/**
 * The roles with these names (name to id), creating the missing ones; the workspace may hold at
 * most `limit` roles: past it nothing is created (LimitReached).
 */
export async function ensureRoles(
  em: EntityManager,
  workspaceId: string,
  names: string[],
  limit: number,
): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  // Sorted, as in ensurePermissions.
  const unique = [...new Set(names)].sort();
  const ids = unique.map(() => newId('role'));
  await lockWorkspaceBounds(em, workspaceId);
  const created = await typed(em)
    .insertInto('roles')
    .columns(['id', 'workspace_id', 'name', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom(unnestAs('t', { id: ['text', ids], name: ['text', unique] }))
        .select(['t.id', eb.val(workspaceId).as('workspace_id'), 't.name', sql<Date>`now()`.as('created_at')]),
    )
    .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
    .returning('id')
    .execute();
  if (created.length > 0) requireWithinLimit('roles', limit, await countRoles(em, workspaceId), created.length);
  const found = await typed(em)
    .selectFrom('roles')
    .select(['id', 'name'])
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb('name', '=', eb.fn.any(eb.val(unique))))
    .forKeyShare()
    .execute();
  return new Map(found.map((role) => [role.name, role.id]));
}

const LINK_TABLES = {
  permissions: { table: 'keys_permissions', owner: 'key_id', column: 'permission_id' },
  roles: { table: 'keys_roles', owner: 'key_id', column: 'role_id' },
  rolePermissions: { table: 'roles_permissions', owner: 'role_id', column: 'permission_id' },
} as const;

/** How many roles the workspace holds. */
export async function countRoles(em: EntityManager, workspaceId: string): Promise<number> {
  const counted = await typed(em)
    .selectFrom('roles')
    .select(sql<number>`count(*)::int`.as('total'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return counted.total;
}

/** What one key may hold of each (docs/contract.md#limits). */
const KEY_LINK_LIMITS = {
  permissions: { resource: 'keyPermissions', limit: MAX_KEY_PERMISSIONS },
  roles: { resource: 'keyRoles', limit: MAX_KEY_ROLES },
} as const;

/**
 * Applies the operation to the key's direct permission or role links. Adding may not take the key
 * past what it may hold (LimitReached); the caller holds the key's row lock, so concurrent adds to
 * one key count one after the other.
 */
export async function linkKey(
  em: EntityManager,
  keyId: string,
  links: 'permissions' | 'roles',
  operation: LinkOperation,
  ids: string[],
): Promise<void> {
  const added = await applyLinks(em, links, keyId, operation, ids);
  if (added === 0) return;
  const counted = await typed(em)
    .selectFrom(LINK_TABLES[links].table)
    .select(sql<number>`count(*)::int`.as('total'))
    .where('key_id', '=', keyId)
    .executeTakeFirstOrThrow();
  const { resource, limit } = KEY_LINK_LIMITS[links];
  requireWithinLimit(resource, limit, counted.total, added);
  if (links === 'roles') await requireKeyRolesWithinLimit(em, [keyId]);
}

/** Applies the operation to the role's permission links. */
export async function linkRole(
  em: EntityManager,
  roleId: string,
  operation: LinkOperation,
  permissionIds: string[],
): Promise<void> {
  const added = await applyLinks(em, 'rolePermissions', roleId, operation, permissionIds);
  if (added > 0) await requireHoldersWithinLimit(em, roleId);
}

/** Inserts `links` rows (owner, linked id, created_at), skipping those that exist; how many it inserted. */
async function insertLinks(
  db: Kysely<Database>,
  links: keyof typeof LINK_TABLES,
  linked: SelectQueryBuilder<Database, never, unknown>,
): Promise<number> {
  const insert = () => {
    switch (links) {
      case 'permissions':
        return db.insertInto('keys_permissions').columns(['key_id', 'permission_id', 'created_at']).expression(linked);
      case 'roles':
        return db.insertInto('keys_roles').columns(['key_id', 'role_id', 'created_at']).expression(linked);
      case 'rolePermissions':
        return db
          .insertInto('roles_permissions')
          .columns(['role_id', 'permission_id', 'created_at'])
          .expression(linked);
    }
  };
  const [inserted] = await insert()
    .onConflict((oc) => oc.doNothing())
    .execute();
  return Number(inserted?.numInsertedOrUpdatedRows ?? 0n);
}

async function applyLinks(
  em: EntityManager,
  links: keyof typeof LINK_TABLES,
  ownerId: string,
  operation: LinkOperation,
  ids: string[],
): Promise<number> {
  const { table, owner, column } = LINK_TABLES[links];
  const db = typed(em);
  if (operation !== 'add') {
    // remove drops the given links; set drops every link not in the new set.
    await db
      .deleteFrom(table)
      .where(owner, '=', ownerId)
      .where((eb) => {
        const given = eb(column, '=', eb.fn.any(eb.val(ids)));
        return operation === 'remove' ? given : eb.not(given);
      })
      .execute();
  }
  if (operation === 'remove' || ids.length === 0) return 0;
  return insertLinks(
    db,
    links,
    db
      .selectFrom(unnestAs('t', { id: ['text', ids] }))
      .select([sql.val(ownerId).as('owner_id'), 't.id', sql<Date>`now()`.as('created_at')]),
  );
}

export type PermissionRow = Pick<Selectable<Database['permissions']>, 'id' | 'name' | 'slug' | 'description'>;

export const permissionRecord = ({ description, ...permission }: PermissionRow): PermissionRecord =>
  description === null ? permission : { ...permission, description };

export type RoleRow = Pick<Selectable<Database['roles']>, 'id' | 'name' | 'description'> & {
  permissions: PermissionRow[];
};

export const roleRecord = ({ description, permissions, ...role }: RoleRow): RoleRecord => ({
  ...role,
  ...(description === null ? {} : { description }),
  permissions: permissions.map(permissionRecord),
});

/** The key's direct permissions (not those it has through roles), by slug. */
export async function keyDirectPermissions(em: EntityManager, keyId: string): Promise<PermissionRecord[]> {
  const found = await typed(em)
    .selectFrom('keys_permissions as kp')
    .innerJoin('permissions as p', 'p.id', 'kp.permission_id')
    .select(['p.id', 'p.name', 'p.slug', 'p.description'])
    .where('kp.key_id', '=', keyId)
    .orderBy('p.slug')
    .execute();
  return found.map(permissionRecord);
}

/** The key's roles, each with its permissions, by name. */
export async function keyDirectRoles(em: EntityManager, keyId: string): Promise<RoleRecord[]> {
  const found = await typed(em)
    .selectFrom('keys_roles as kr')
    .innerJoin('roles as r', 'r.id', 'kr.role_id')
    .select(['r.id', 'r.name', 'r.description', rolePermissionsOf(sql.ref('r.id')).as('permissions')])
    .where('kr.key_id', '=', keyId)
    .orderBy('r.name')
    .execute();
  return found.map(roleRecord);
}

/**
 * Adds, removes or sets the key's direct permissions by slug, in one transaction, and returns them
 * afterwards. add and set create missing slugs, as `creation` allows (it throws
 * otherwise); remove answers 404 for a slug the workspace does not have.
 */
export async function changeKeyPermissions(
  em: EntityManager,
  changeLog: ChangeLog,
  key: KeyRecord,
  operation: LinkOperation,
  slugs: string[],
  creation?: PermissionCreation,
): Promise<PermissionRecord[]> {
  // Removing creates nothing: a slug the workspace does not have is a 404.
  const resolving: PermissionCreation | undefined =
    operation === 'remove'
      ? {
          allow: (missing) => {
            throw new RowNotFound('permission', missing[0]);
          },
          limit: 0,
        }
      : creation;
  if (!resolving) throw new Error('adding or setting permissions needs to know how to create missing ones');
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const permissionIds = await resolvePermissions(tx, key.workspaceId, slugs, resolving);
    await linkKey(tx, key.id, 'permissions', operation, permissionIds);
    await changeLog.announce(tx, keyInvalidation(key));
    return keyDirectPermissions(tx, key.id);
  });
}

/**
 * Adds, removes or sets the key's roles by name, in one transaction, and returns them afterwards.
 * Roles are never created here: an unknown name answers 404.
 */
export async function changeKeyRoles(
  em: EntityManager,
  changeLog: ChangeLog,
  key: KeyRecord,
  operation: LinkOperation,
  names: string[],
): Promise<RoleRecord[]> {
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const roleIds = await findRoleIds(tx, key.workspaceId, names);
    await linkKey(tx, key.id, 'roles', operation, roleIds);
    await changeLog.announce(tx, keyInvalidation(key));
    return keyDirectRoles(tx, key.id);
  });
}

/** A key's own grants, as `keys.setRoles` and `keys.setPermissions` replace them. */
export async function findKeyGrants(
  em: EntityManager,
  keyId: string,
): Promise<{ roles: string[]; directPermissions: string[]; recoverable: boolean }> {
  return typed(em)
    .selectNoFrom([
      roleNamesOf(keyId).as('roles'),
      directPermissionSlugsOf(keyId).as('directPermissions'),
      // A recoverable key keeps its ciphertext in its row (keyLifecycle.ts).
      sql<boolean>`exists (select from keys k where k.id = ${keyId} and k.ciphertext is not null)`.as('recoverable'),
    ])
    .executeTakeFirstOrThrow();
}
