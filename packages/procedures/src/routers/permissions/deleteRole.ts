import { roleNotFound } from '@keyplane/core';
import { deleteRole as deleteRoleRecord } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `role` is the role's id or its name. */
export const deleteRoleInput = z.strictObject({ role: rbacNameSchema });

export const deleteRoleOutput = z.object({});

export const deleteRole = rootKeyProcedure
  .meta({ public: true, description: 'Deletes a role, named by its id or name.', errors: [404] })
  .input(deleteRoleInput)
  .output(deleteRoleOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (docs/contract.md#authorization-order): 403 even for a role that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('delete_role')]);
    if (!(await deleteRoleRecord(ctx.em, ctx.changeLog, ctx.rootKey.workspaceId, input.role))) {
      throw roleNotFound();
    }
    return {};
  });
