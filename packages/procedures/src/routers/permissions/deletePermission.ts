import { notFound } from '@keyplane/core';
import { deletePermission as deletePermissionRecord } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `permission` is the permission's id or its slug. */
export const deletePermissionInput = z.strictObject({ permission: rbacNameSchema });

export const deletePermissionOutput = z.object({});

export const deletePermission = rootKeyProcedure
  .meta({ public: true })
  .input(deletePermissionInput)
  .output(deletePermissionOutput)
  .mutation(async ({ ctx, input }) => {
    // Authorization before the lookup (reference §8): 403 even for a permission that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('delete_permission')]);
    const invalidation = await deletePermissionRecord(ctx.em, ctx.rootKey.workspaceId, input.permission);
    if (!invalidation) throw notFound('permission', 'The requested permission does not exist.');
    // Keys that held it verify without it from the next request on, on this node at once.
    await settle(ctx.services, invalidation);
    return {};
  });
