import { permissionNotFound } from '@keyplane/core';
import { deletePermission as deletePermissionRecord } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `permission` is the permission's id or its slug. */
export const deletePermissionInput = z.strictObject({ permission: rbacNameSchema });

export const deletePermissionOutput = z.object({});

export const deletePermission = rootKeyProcedure
  .meta({ public: true, description: 'Deletes a permission, named by its id or slug.', errors: [404] })
  .input(deletePermissionInput)
  .output(deletePermissionOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (docs/contract.md#authorization-order): 403 even for a permission
    // that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('delete_permission')]);
    if (!(await deletePermissionRecord(ctx.em, ctx.changeLog, ctx.rootKey.workspaceId, input.permission))) {
      throw permissionNotFound();
    }
    return {};
  });
