import { changeKeyPermissions } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const addPermissionsInput = z.strictObject({
  keyId: resourceIdSchema,
  permissions: z.array(rbacNameSchema).min(1).max(1000),
});

/** The key's direct permissions after the change. */
export const addPermissionsOutput = z.array(permissionSchema);

export const addPermissions = rootKeyProcedure
  .meta({ public: true })
  .input(addPermissionsInput)
  .output(addPermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key'], [rbacPermission('add_permission_to_key')]);
    // Creating a slug the workspace does not have yet is a permission of its own.
    const { permissions, invalidation } = await changeKeyPermissions(ctx.em, key, 'add', input.permissions, () =>
      requirePermissions(ctx.rootKey, [rbacPermission('create_permission')]),
    );
    await settle(ctx.services, invalidation);
    return permissions;
  });
