import { conflict, newId, notFound } from '@keyplane/core';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { rolePermissionsOf } from './keyFragments.ts';
import {
  type BeforeCreatingPermissions,
  linkRole,
  type PermissionRecord,
  type RoleRecord,
  type RoleRow,
  resolvePermissions,
  roleRecord,
} from './keyRbac.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, rows, sql } from './sql.ts';

export interface NewRole {
  name: string;
  description?: string;
  /** Slugs; missing ones are created. */
  permissions: string[];
}

/**
 * Creates the role with its permissions in one transaction, or answers 409 when the name is taken.
 * The unique constraint decides, not a prior lookup: of two concurrent creates exactly one wins.
 * No key holds the new role yet, so no cache has anything to forget.
 */
export async function createRole(
  em: EntityManager,
  workspaceId: string,
  role: NewRole,
  beforeCreating: BeforeCreatingPermissions,
): Promise<string> {
  return em.transactional(async (tx) => {
    // Who may create the missing slugs is settled first (403 before 409); a conflict below rolls
    // back any permission created here.
    const permissionIds = await resolvePermissions(tx, workspaceId, role.permissions, beforeCreating);
    const [created] = await rows(
      tx,
      sql<{ id: string }>`
        insert into roles (id, workspace_id, name, description, created_at)
        values (${newId('role')}, ${workspaceId}, ${role.name}, ${role.description ?? null}, now())
        on conflict (workspace_id, name) do nothing
        returning id`,
    );
    if (!created) throw conflict('role', `A role with name '${role.name}' already exists in this workspace`);
    await linkRole(tx, created.id, 'add', permissionIds);
    return created.id;
  });
}

/** The id of the workspace's role with this id or name; the id wins when a name looks like another role's id. */
const roleIdFor = (workspaceId: string, role: string) => sql<{ id: string }>`
  select id from roles where workspace_id = ${workspaceId} and (id = ${role} or name = ${role})
  order by id = ${role} desc limit 1`;

/** The workspace's role with this id or name, with its permissions. */
export async function findRole(em: EntityManager, workspaceId: string, role: string): Promise<RoleRecord | undefined> {
  const [found] = await rows(
    em,
    sql<RoleRow>`
      select r.id, r.name, r.description, ${rolePermissionsOf(sql.ref('r.id'))} as permissions
      from roles r where r.id = (${roleIdFor(workspaceId, role)})`,
  );
  return found && roleRecord(found);
}

/** A page of the workspace's roles by id, each with its permissions, in one statement. */
export async function listRoles(em: EntityManager, workspaceId: string, page: PageQuery): Promise<RoleRecord[]> {
  const found = await rows(
    em,
    sql<RoleRow>`
      select r.id, r.name, r.description, ${rolePermissionsOf(sql.ref('r.id'))} as permissions
      from roles r
      where r.workspace_id = ${workspaceId}
        and ${startingAt('r.id', page.fromId)}
        and ${containsAny(['r.id', 'r.name', 'r.description'], page.search)}
      order by r.id limit ${page.count}`,
  );
  return found.map(roleRecord);
}

/**
 * Deletes the role with this id or name; the foreign keys take it off every key. Undefined when
 * there is none; otherwise what every node must forget: the keys that held it, which the caches
 * cannot single out, so the whole workspace.
 */
export async function deleteRole(
  em: EntityManager,
  workspaceId: string,
  role: string,
): Promise<Invalidation | undefined> {
  return em.transactional(async (tx) => {
    const [deleted] = await rows(
      tx,
      sql<{ id: string }>`delete from roles where id = (${roleIdFor(workspaceId, role)}) returning id`,
    );
    if (!deleted) return undefined;
    const invalidation = { workspaceId };
    await notifyInvalidation(tx, invalidation);
    return invalidation;
  });
}

/**
 * The role's permissions become exactly these slugs, atomically: the role's row is locked for the
 * transaction, so concurrent changes to one role apply one after the other. Returns the role's
 * permissions afterwards, by slug, and what every node must forget (every key holding the role).
 */
export async function setRolePermissions(
  em: EntityManager,
  workspaceId: string,
  roleId: string,
  slugs: string[],
  beforeCreating: BeforeCreatingPermissions,
): Promise<{ permissions: PermissionRecord[]; invalidation: Invalidation }> {
  return em.transactional(async (tx) => {
    // NO KEY UPDATE: concurrent changes of this role's permissions (and its deletion) wait, while
    // keys may still be given the role meanwhile (their foreign keys take KEY SHARE).
    const [locked] = await rows(
      tx,
      sql<{ id: string }>`
        select id from roles where id = ${roleId} and workspace_id = ${workspaceId} for no key update`,
    );
    if (!locked) throw notFound('role', 'The requested role does not exist.');
    const permissionIds = await resolvePermissions(tx, workspaceId, slugs, beforeCreating);
    await linkRole(tx, roleId, 'set', permissionIds);
    const invalidation = { workspaceId };
    await notifyInvalidation(tx, invalidation);
    const after = await findRole(tx, workspaceId, roleId);
    return { permissions: after?.permissions ?? [], invalidation };
  });
}
