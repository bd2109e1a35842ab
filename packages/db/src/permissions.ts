import type { ChangeLog } from '@keyplane/caches';
import { newId } from '@keyplane/core';
import { RowExists } from './errors.ts';
import { type PermissionRecord, permissionRecord } from './keyRbac.ts';
import { countPermissions } from './keys.ts';
import { lockWorkspaceBounds, requireWithinLimit } from './limits.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { namedBy } from './lookup.ts';
import { type EntityManager, sql, typed } from './sql.ts';

export interface NewPermission {
  name: string;
  slug: string;
  description?: string;
}

/**
 * Creates the permission, or answers 409 when the slug is taken. The unique constraint decides,
 * not a prior lookup: of two concurrent creates of one slug exactly one wins. Past `limit`
 * permissions nothing is created (LimitReached), counted under the workspace's bounds lock.
 */
export async function createPermission(
  em: EntityManager,
  workspaceId: string,
  permission: NewPermission,
  limit: number,
): Promise<string> {
  return em.transactional(async (tx) => {
    await lockWorkspaceBounds(tx, workspaceId);
    const created = await typed(tx)
      .insertInto('permissions')
      .values({
        id: newId('permission'),
        workspace_id: workspaceId,
        name: permission.name,
        slug: permission.slug,
        description: permission.description ?? null,
        created_at: sql`now()`,
      })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'slug']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!created) throw new RowExists('permission', permission.slug);
    requireWithinLimit('permissions', limit, await countPermissions(tx, workspaceId), 1);
    return created.id;
  });
}

/** The id of the workspace's permission with this id or slug. */
const permissionNamed = (em: EntityManager, workspaceId: string, permission: string) =>
  typed(em)
    .selectFrom('permissions')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .$call(namedBy('slug', permission));

const permissions = (em: EntityManager) =>
  typed(em).selectFrom('permissions').select(['id', 'name', 'slug', 'description']);

/** The workspace's permission with this id or slug. */
export async function findPermission(
  em: EntityManager,
  workspaceId: string,
  permission: string,
): Promise<PermissionRecord | undefined> {
  const found = await permissions(em)
    .where('id', '=', permissionNamed(em, workspaceId, permission))
    .executeTakeFirst();
  return found && permissionRecord(found);
}

/** A page of the workspace's permissions by id. */
export async function listPermissions(
  em: EntityManager,
  workspaceId: string,
  page: PageQuery,
): Promise<PermissionRecord[]> {
  const found = await permissions(em)
    .where('workspace_id', '=', workspaceId)
    .where(startingAt('id', page.fromId))
    .where(containsAny(['id', 'name', 'slug', 'description'], page.search))
    .orderBy('id')
    .limit(page.count)
    .execute();
  return found.map(permissionRecord);
}

/**
 * Deletes the permission with this id or slug; the foreign keys take it off every role and key.
 * False when there is none. Every node forgets the keys holding it, directly or through roles: the
 * whole workspace as far as the caches can tell.
 */
export async function deletePermission(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  permission: string,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .deleteFrom('permissions')
      .where('id', '=', permissionNamed(tx, workspaceId, permission))
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await changeLog.announce(tx, { workspaceId });
    return true;
  });
}
