import { setRolePermissions as setRolePermissionRecords } from '@keyplane/db';
import { z } from 'zod';
import { permissionCreation, rbacPermission, requirePermissions, slugCreationUpFront } from '../../middleware/auth.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
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
  /** The role's id only, not its name (docs/contract.md#roles-and-permissions). */
  roleId: resourceIdSchema,
  /** The role's permissions become exactly these slugs; `[]` removes them all. */
  permissions: z.array(rbacNameSchema).max(1000).transform(uniqueIgnoringCase),
});

/** The role's permissions after the change, by slug. */
export const setRolePermissionsOutput = z.array(permissionSchema);

export const setRolePermissions = rootKeyProcedure
  .meta({
    public: true,
    description: "Replaces a role's permissions, creating slugs that do not exist yet.",
    errors: [404, 412],
  })
  .input(setRolePermissionsInput)
  .output(setRolePermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (docs/contract.md#authorization-order): 403 even for a role that does not exist.
    requirePermissions(ctx.rootKey, [
      rbacPermission('add_permission_to_role'),
      rbacPermission('remove_permission_from_role'),
      ...slugCreationUpFront(ctx.rootKey, input.permissions),
    ]);
    return setRolePermissionRecords(
      ctx.em,
      ctx.changeLog,
      ctx.rootKey.workspaceId,
      input.roleId,
      input.permissions,
      permissionCreation(ctx.rootKey, ctx.services.limits),
    );
  });
