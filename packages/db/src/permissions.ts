import { conflict, newId } from '@keyplane/core';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { type PermissionRecord, type PermissionRow, permissionRecord } from './keyRbac.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, rows, sql } from './sql.ts';

export interface NewPermission {
  name: string;
  slug: string;
  description?: string;
}

/**
 * Creates the permission, or answers 409 when the slug is taken. The unique constraint decides,
 * not a prior lookup: of two concurrent creates of one slug exactly one wins.
 */
export async function createPermission(
  em: EntityManager,
  workspaceId: string,
  permission: NewPermission,
): Promise<string> {
  const [created] = await rows(
    em,
    sql<{ id: string }>`
      insert into permissions (id, workspace_id, name, slug, description, created_at)
      values (${newId('permission')}, ${workspaceId}, ${permission.name}, ${permission.slug},
              ${permission.description ?? null}, now())
      on conflict (workspace_id, slug) do nothing
      returning id`,
  );
  if (!created) {
    throw conflict('permission', `A permission with slug '${permission.slug}' already exists in this workspace`);
  }
  return created.id;
}

/**
 * The id of the workspace's permission with this id or slug. A slug may look like another
 * permission's id; the id wins then, so a lookup never matches two rows.
 */
const permissionIdFor = (workspaceId: string, permission: string) => sql<{ id: string }>`
  select id from permissions where workspace_id = ${workspaceId} and (id = ${permission} or slug = ${permission})
  order by id = ${permission} desc limit 1`;

/** The workspace's permission with this id or slug. */
export async function findPermission(
  em: EntityManager,
  workspaceId: string,
  permission: string,
): Promise<PermissionRecord | undefined> {
  const [found] = await rows(
    em,
    sql<PermissionRow>`
      select id, name, slug, description from permissions where id = (${permissionIdFor(workspaceId, permission)})`,
  );
  return found && permissionRecord(found);
}

/** A page of the workspace's permissions by id. */
export async function listPermissions(
  em: EntityManager,
  workspaceId: string,
  page: PageQuery,
): Promise<PermissionRecord[]> {
  const found = await rows(
    em,
    sql<PermissionRow>`
      select id, name, slug, description from permissions
      where workspace_id = ${workspaceId}
        and ${startingAt('id', page.fromId)}
        and ${containsAny(['id', 'name', 'slug', 'description'], page.search)}
      order by id limit ${page.count}`,
  );
  return found.map(permissionRecord);
}

/**
 * Deletes the permission with this id or slug; the foreign keys take it off every role and key.
 * Undefined when there is none; otherwise what every node must forget: the keys holding it,
 * directly or through roles, are the whole workspace as far as the caches can tell.
 */
export async function deletePermission(
  em: EntityManager,
  workspaceId: string,
  permission: string,
): Promise<Invalidation | undefined> {
  return em.transactional(async (tx) => {
    const [deleted] = await rows(
      tx,
      sql<{ id: string }>`
        delete from permissions where id = (${permissionIdFor(workspaceId, permission)}) returning id`,
    );
    if (!deleted) return undefined;
    const invalidation = { workspaceId };
    await notifyInvalidation(tx, invalidation);
    return invalidation;
  });
}
