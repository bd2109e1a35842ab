import { newId, notFound } from '@keyplane/core';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { findKeyRecord, type KeyRecord } from './keyRecords.ts';
import { ensurePermissions, findRoleIds } from './keys.ts';
import { type EntityManager, rows, sql } from './sql.ts';

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
  if (!locked) throw notFound('key', `The key '${key.id}' was not found.`);
}

/** The workspace's permissions with these slugs; slugs that do not exist are simply absent. */
export async function findPermissions(
  em: EntityManager,
  workspaceId: string,
  slugs: string[],
): Promise<{ id: string; slug: string }[]> {
  if (slugs.length === 0) return [];
  return rows(
    em,
    sql<{ id: string; slug: string }>`
      select id, slug from permissions where workspace_id = ${workspaceId} and slug = any(${[...new Set(slugs)]}::text[])`,
  );
}

/** The roles with these names (name to id), creating the missing ones. */
export async function ensureRoles(
  em: EntityManager,
  workspaceId: string,
  names: string[],
): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  // Sorted, as in ensurePermissions.
  const unique = [...new Set(names)].sort();
  const ids = unique.map(() => newId('role'));
  await rows(
    em,
    sql`
      insert into roles (id, workspace_id, name, created_at)
      select id, ${workspaceId}, name, now() from unnest(${ids}::text[], ${unique}::text[]) as t(id, name)
      on conflict (workspace_id, name) do nothing`,
  );
  const found = await rows(
    em,
    sql<{ id: string; name: string }>`
      select id, name from roles where workspace_id = ${workspaceId} and name = any(${unique}::text[])`,
  );
  return new Map(found.map((role) => [role.name, role.id]));
}

const LINK_TABLES = {
  permissions: { table: 'keys_permissions', column: 'permission_id' },
  roles: { table: 'keys_roles', column: 'role_id' },
} as const;

/** Applies the operation to the key's direct permission or role links. */
export async function linkKey(
  em: EntityManager,
  keyId: string,
  links: keyof typeof LINK_TABLES,
  operation: LinkOperation,
  ids: string[],
): Promise<void> {
  const table = sql.table(LINK_TABLES[links].table);
  const column = sql.ref(LINK_TABLES[links].column);
  if (operation !== 'add') {
    // remove drops the given links; set drops every link not in the new set.
    await rows(
      em,
      sql`
        delete from ${table} where key_id = ${keyId}
        and ${operation === 'remove' ? sql`` : sql`not`} (${column} = any(${ids}::text[]))`,
    );
  }
  if (operation !== 'remove' && ids.length > 0) {
    await rows(
      em,
      sql`
        insert into ${table} (key_id, ${column}, created_at)
        select ${keyId}, id, now() from unnest(${ids}::text[]) as t(id)
        on conflict do nothing`,
    );
  }
}

interface PermissionRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
}

const permissionRecord = ({ description, ...permission }: PermissionRow): PermissionRecord =>
  description === null ? permission : { ...permission, description };

/** The key's direct permissions (not those it has through roles), by slug. */
export async function keyDirectPermissions(em: EntityManager, keyId: string): Promise<PermissionRecord[]> {
  const found = await rows(
    em,
    sql<PermissionRow>`
      select p.id, p.name, p.slug, p.description
      from keys_permissions kp join permissions p on p.id = kp.permission_id
      where kp.key_id = ${keyId} order by p.slug`,
  );
  return found.map(permissionRecord);
}

/** The key's roles, each with its permissions, by name. */
export async function keyDirectRoles(em: EntityManager, keyId: string): Promise<RoleRecord[]> {
  const found = await rows(
    em,
    sql<{ id: string; name: string; description: string | null; permissions: PermissionRow[] }>`
      select r.id, r.name, r.description,
             coalesce((select json_agg(json_build_object('id', p.id, 'name', p.name, 'slug', p.slug,
                 'description', p.description) order by p.slug)
               from roles_permissions rp join permissions p on p.id = rp.permission_id
               where rp.role_id = r.id), '[]'::json) as permissions
      from keys_roles kr join roles r on r.id = kr.role_id
      where kr.key_id = ${keyId} order by r.name`,
  );
  return found.map(({ description, permissions, ...role }) => ({
    ...role,
    ...(description === null ? {} : { description }),
    permissions: permissions.map(permissionRecord),
  }));
}

/**
 * Adds, removes or sets the key's direct permissions by slug, in one transaction, and returns them
 * afterwards. add and set create missing slugs, after `beforeCreating` allowed it (it throws
 * otherwise); remove answers 404 for a slug the workspace does not have.
 */
export async function changeKeyPermissions(
  em: EntityManager,
  key: KeyRecord,
  operation: LinkOperation,
  slugs: string[],
  beforeCreating: (missing: string[]) => void = () => {},
): Promise<{ permissions: PermissionRecord[]; invalidation: Invalidation }> {
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const existing = await findPermissions(tx, key.workspaceId, slugs);
    const known = new Set(existing.map((permission) => permission.slug));
    const missing = [...new Set(slugs)].filter((slug) => !known.has(slug));
    let permissionIds = existing.map((permission) => permission.id);
    if (missing.length > 0) {
      if (operation === 'remove') throw notFound('permission', `Permission '${missing[0]}' was not found.`);
      beforeCreating(missing);
      permissionIds = await ensurePermissions(tx, key.workspaceId, slugs);
    }
    await linkKey(tx, key.id, 'permissions', operation, permissionIds);
    const invalidation = keyInvalidation(key);
    await notifyInvalidation(tx, invalidation);
    return { permissions: await keyDirectPermissions(tx, key.id), invalidation };
  });
}

/**
 * Adds, removes or sets the key's roles by name, in one transaction, and returns them afterwards.
 * Roles are never created here: an unknown name answers 404.
 */
export async function changeKeyRoles(
  em: EntityManager,
  key: KeyRecord,
  operation: LinkOperation,
  names: string[],
): Promise<{ roles: RoleRecord[]; invalidation: Invalidation }> {
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const roleIds = await findRoleIds(tx, key.workspaceId, names);
    await linkKey(tx, key.id, 'roles', operation, roleIds);
    const invalidation = keyInvalidation(key);
    await notifyInvalidation(tx, invalidation);
    return { roles: await keyDirectRoles(tx, key.id), invalidation };
  });
}
