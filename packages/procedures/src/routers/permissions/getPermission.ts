import { permissionNotFound } from '@keyplane/core';
import { findPermission } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { permissionSchema, rbacNameSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** `permission` is the permission's id or its slug. */
export const getPermissionInput = z.strictObject({ permission: rbacNameSchema });

export const getPermissionOutput = permissionSchema;

export const getPermission = rootKeyProcedure
  .meta({ public: true, description: 'Returns a permission, named by its id or slug.', errors: [404] })
  .input(getPermissionInput)
  .output(getPermissionOutput)
  .query(async ({ ctx, input }) => {
    // Authorization before the lookup (docs/contract.md#authorization-order): 403 even for a permission
    // that does not exist.
    requirePermissions(ctx.rootKey, [rbacPermission('read_permission')]);
    const permission = await findPermission(ctx.em, ctx.rootKey.workspaceId, input.permission);
    if (!permission) throw permissionNotFound();
    return permission;
  });
