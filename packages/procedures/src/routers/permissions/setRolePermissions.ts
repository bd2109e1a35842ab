import { setRolePermissions as setRolePermissionRecords } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** Drops repeated slugs, comparing without letter case as the reference does; the first spelling stays. */
function uniqueIgnoringCase(slugs: string[]): string[] {
  const seen = new Set<string>();
  return slugs.filter((slug) => {
    const folded = slug.toLowerCase();
    if (seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
}

export const setRolePermissionsInput = z.strictObject({
  /** The role's id only, not its name (reference 3.5). */
  roleId: resourceIdSchema,
  /** The role's permissions become exactly these slugs; `[]` removes them all. */
  permissions: z.array(rbacNameSchema).max(1000).transform(uniqueIgnoringCase),
});

/** The role's permissions after the change, by slug. */
export const setRolePermissionsOutput = z.array(permissionSchema);

export const setRolePermissions = rootKeyProcedure
  .meta({ public: true })
  .input(setRolePermissionsInput)
  .output(setRolePermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (reference §8): 403 even for a role that does not exist.
    requirePermissions(ctx.rootKey, [
      rbacPermission('add_permission_to_role'),
      rbacPermission('remove_permission_from_role'),
    ]);
    const { permissions, invalidation } = await setRolePermissionRecords(
      ctx.em,
      ctx.rootKey.workspaceId,
      input.roleId,
      input.permissions,
      // Creating a slug the workspace does not have yet is a permission of its own.
      () => requirePermissions(ctx.rootKey, [rbacPermission('create_permission')]),
    );
    // Keys holding the role verify with its new permissions from the next request on, on this node at once.
    await settle(ctx.services, invalidation);
    return permissions;
  });
