import { createRole as createRoleRecord } from '@keyplane/db';
import { z } from 'zod';
import { permissionCreation, rbacPermission, requirePermissions, slugCreationUpFront } from '../../middleware/auth.ts';
import { rbacNameSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createRoleInput = z.strictObject({
  name: rbacNameSchema,
  description: textSchema.max(512).optional(),
  /** Slugs: existing permissions are reused, missing ones created. */
  permissions: z.array(rbacNameSchema).max(1000).optional(),
});

export const createRoleOutput = z.object({ roleId: z.string() });

export const createRole = rootKeyProcedure
  .meta({ public: true, description: 'Creates a role, optionally with permissions.', errors: [409, 412] })
  .input(createRoleInput)
  .output(createRoleOutput)
  .mutation(async ({ ctx, input }) => {
    const permissions = input.permissions ?? [];
    requirePermissions(ctx.rootKey, [
      rbacPermission('create_role'),
      ...(permissions.length > 0 ? [rbacPermission('add_permission_to_role')] : []),
      ...slugCreationUpFront(ctx.rootKey, permissions),
    ]);
    const roleId = await createRoleRecord(
      ctx.em,
      ctx.rootKey.workspaceId,
      { name: input.name, description: input.description, permissions },
      { roles: ctx.services.limits.roles, creation: permissionCreation(ctx.rootKey, ctx.services.limits) },
    );
    return { roleId };
  });
