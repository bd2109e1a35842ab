import type { ChangeLog } from '@keyplane/caches';
import { newId } from '@keyplane/core';
import { RowExists, RowNotFound } from './errors.ts';
import { rolePermissionsOf } from './keyFragments.ts';
import {
  countRoles,
  linkRole,
  type PermissionCreation,
  type PermissionRecord,
  type RoleRecord,
  resolvePermissions,
  roleRecord,
} from './keyRbac.ts';
import { lockWorkspaceBounds, requireWithinLimit } from './limits.ts';
import { budgetedPageLength, type ChosenPage, containsAny, type PageQuery, startingAt } from './listing.ts';
import { namedBy } from './lookup.ts';
import { type EntityManager, sql, typed } from './sql.ts';

export interface NewRole {
  name: string;
  description?: string;
  /** Slugs; missing ones are created. */
  permissions: string[];
}

/**
 * Creates the role with its permissions in one transaction, or answers 409 when the name is taken.
 * The unique constraint decides, not a prior lookup: of two concurrent creates exactly one wins.
 * Past `roleLimit` roles (or the permissions' limit) nothing is created (LimitReached), counted
 * under the workspace's bounds lock. No key holds the new role yet, so no cache has anything to forget.
 */
export async function createRole(
  em: EntityManager,
  workspaceId: string,
  role: NewRole,
  limits: { roles: number; creation: PermissionCreation },
): Promise<string> {
  return em.transactional(async (tx) => {
    await lockWorkspaceBounds(tx, workspaceId);
    // Who may create the missing slugs is settled first (403 before 409); a conflict below rolls
    // back any permission created here.
    const permissionIds = await resolvePermissions(tx, workspaceId, role.permissions, limits.creation);
    const created = await typed(tx)
      .insertInto('roles')
      .values({
        id: newId('role'),
        workspace_id: workspaceId,
        name: role.name,
        description: role.description ?? null,
        created_at: sql`now()`,
      })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!created) throw new RowExists('role', role.name);
    requireWithinLimit('roles', limits.roles, await countRoles(tx, workspaceId), 1);
    await linkRole(tx, created.id, 'add', permissionIds);
    return created.id;
  });
}

/** The id of the workspace's role with this id or name. */
const roleNamed = (em: EntityManager, workspaceId: string, role: string) =>
  typed(em).selectFrom('roles').select('id').where('workspace_id', '=', workspaceId).$call(namedBy('name', role));

/** Roles with their permissions: a subquery, so a page of roles comes in one statement. */
const roles = (em: EntityManager) =>
  typed(em)
    .selectFrom('roles as r')
    .select(['r.id', 'r.name', 'r.description'])
    .select(rolePermissionsOf(sql.ref('r.id')).as('permissions'));

/** The workspace's role with this id or name, with its permissions. */
export async function findRole(em: EntityManager, workspaceId: string, role: string): Promise<RoleRecord | undefined> {
  const found = await roles(em)
    .where('r.id', '=', roleNamed(em, workspaceId, role))
    .executeTakeFirst();
  return found && roleRecord(found);
}

/**
 * A page of the workspace's roles by id, each with its permissions: at most `page.count - 1`
 * roles holding at most `maxPermissions` permissions between them (one role at least, whatever it
 * holds). The roles are chosen by how many permissions they hold before any permission is read.
 */
export async function listRoles(
  em: EntityManager,
  workspaceId: string,
  page: PageQuery,
  maxPermissions: number,
): Promise<ChosenPage<RoleRecord>> {
  const candidates = await typed(em)
    .selectFrom('roles as r')
    .select([
      'r.id',
      (eb) =>
        eb
          .selectFrom('roles_permissions as rp')
          .whereRef('rp.role_id', '=', 'r.id')
          .select(sql<number>`count(*)::int`.as('permission_count'))
          .as('permission_count'),
    ])
    .where('r.workspace_id', '=', workspaceId)
    .where(startingAt('r.id', page.fromId))
    .where(containsAny(['r.id', 'r.name', 'r.description'], page.search))
    .orderBy('r.id')
    .limit(page.count)
    .execute();
  const length = budgetedPageLength(
    candidates.map((candidate) => candidate.permission_count ?? 0),
    page.count - 1,
    maxPermissions,
  );
  const ids = candidates.slice(0, length).map((candidate) => candidate.id);
  const found = ids.length === 0 ? [] : await roles(em).where('r.id', 'in', ids).orderBy('r.id').execute();
  return { rows: found.map(roleRecord), nextId: candidates[length]?.id };
}

/**
 * Deletes the role with this id or name; the foreign keys take it off every key. False when there
 * is none. Every node forgets the keys that held it, which the caches cannot single out, so the
 * whole workspace.
 */
export async function deleteRole(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  role: string,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .deleteFrom('roles')
      .where('id', '=', roleNamed(tx, workspaceId, role))
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await changeLog.announce(tx, { workspaceId });
    return true;
  });
}

/**
 * The role's permissions become exactly these slugs, atomically: the role's row is locked for the
 * transaction, so concurrent changes to one role apply one after the other. Returns the role's
 * permissions afterwards, by slug, and what every node must forget (every key holding the role).
 */
export async function setRolePermissions(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  roleId: string,
  slugs: string[],
  creation: PermissionCreation,
): Promise<PermissionRecord[]> {
  return em.transactional(async (tx) => {
    // NO KEY UPDATE: concurrent changes of this role's permissions (and its deletion) wait, while
    // keys may still be given the role meanwhile (their foreign keys take KEY SHARE).
    const locked = await typed(tx)
      .selectFrom('roles')
      .select('id')
      .where('id', '=', roleId)
      .where('workspace_id', '=', workspaceId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!locked) throw new RowNotFound('role');
    const permissionIds = await resolvePermissions(tx, workspaceId, slugs, creation);
    await linkRole(tx, roleId, 'set', permissionIds);
    await changeLog.announce(tx, { workspaceId });
    const after = await findRole(tx, workspaceId, roleId);
    return after?.permissions ?? [];
  });
}
