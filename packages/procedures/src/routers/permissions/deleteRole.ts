import { notFound } from '@keyplane/core';
import { deleteRole as deleteRoleRecord } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `role` is the role's id or its name. */
export const deleteRoleInput = z.strictObject({ role: rbacNameSchema });

export const deleteRoleOutput = z.object({});

export const deleteRole = rootKeyProcedure
  .meta({ public: true })
  .input(deleteRoleInput)
  .output(deleteRoleOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (reference §8): 403 even for a role that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('delete_role')]);
    const invalidation = await deleteRoleRecord(ctx.em, ctx.rootKey.workspaceId, input.role);
    if (!invalidation) throw notFound('role', 'The requested role does not exist.');
    // Keys that held it verify without it from the next request on, on this node at once.
    await settle(ctx.services, invalidation);
    return {};
  });
