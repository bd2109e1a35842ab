import { changeKeyPermissions } from '@keyplane/db';
import { z } from 'zod';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const removePermissionsInput = z.strictObject({
  keyId: resourceIdSchema,
  permissions: z.array(rbacNameSchema).min(1).max(1000),
});

/** The key's direct permissions after the change. */
export const removePermissionsOutput = z.array(permissionSchema);

export const removePermissions = rootKeyProcedure
  .meta({ public: true, description: 'Removes permissions from a key.', errors: [404] })
  .input(removePermissionsInput)
  .output(removePermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(
      ctx,
      input.keyId,
      ['update_key'],
      keyLinkPermissions({ permissions: 'remove' }),
    );
    return changeKeyPermissions(ctx.em, ctx.changeLog, key, 'remove', input.permissions);
  });
