import { roleNotFound } from '@keyplane/core';
import { findRole } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema, roleSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `role` is the role's id or its name. */
export const getRoleInput = z.strictObject({ role: rbacNameSchema });

export const getRoleOutput = roleSchema;

export const getRole = rootKeyProcedure
  .meta({ public: true, description: 'Returns a role with its permissions, named by its id or name.', errors: [404] })
  .input(getRoleInput)
  .output(getRoleOutput)
  .query(async ({ ctx, input }) => {
    // Authorization before the lookup (docs/contract.md#authorization-order): 403 even for a role that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('read_role')]);
    const role = await findRole(ctx.em, ctx.rootKey.workspaceId, input.role);
    if (!role) throw roleNotFound();
    return role;
  });
