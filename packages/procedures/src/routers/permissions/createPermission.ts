import { createPermission as createPermissionRecord } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { rbacNameSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createPermissionInput = z.strictObject({
  name: textSchema.min(1).max(512),
  slug: rbacNameSchema,
  description: textSchema.max(512).optional(),
});

export const createPermissionOutput = z.object({ permissionId: z.string() });

export const createPermission = rootKeyProcedure
  .meta({ public: true, description: 'Creates a permission.', errors: [409, 412] })
  .input(createPermissionInput)
  .output(createPermissionOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [rbacPermission('create_permission')]);
    return {
      permissionId: await createPermissionRecord(
        ctx.em,
        ctx.rootKey.workspaceId,
        input,
        ctx.services.limits.permissions,
      ),
    };
  });
