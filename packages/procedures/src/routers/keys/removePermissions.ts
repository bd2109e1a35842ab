import { changeKeyPermissions } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission } from '../../middleware/auth.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const removePermissionsInput = z.strictObject({
  keyId: resourceIdSchema,
  permissions: z.array(rbacNameSchema).min(1).max(1000),
});

/** The key's direct permissions after the change. */
export const removePermissionsOutput = z.array(permissionSchema);

export const removePermissions = rootKeyProcedure
  .meta({ public: true })
  .input(removePermissionsInput)
  .output(removePermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(
      ctx,
      input.keyId,
      ['update_key'],
      [rbacPermission('remove_permission_from_key')],
    );
    const { permissions, invalidation } = await changeKeyPermissions(ctx.em, key, 'remove', input.permissions);
    await settle(ctx.services, invalidation);
    return permissions;
  });
