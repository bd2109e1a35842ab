import { changeKeyPermissions } from '@keyplane/db';
import { z } from 'zod';
import { permissionCreation, slugCreationUpFront } from '../../middleware/auth.ts';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const addPermissionsInput = z.strictObject({
  keyId: resourceIdSchema,
  permissions: z.array(rbacNameSchema).min(1).max(1000),
});

/** The key's direct permissions after the change. */
export const addPermissionsOutput = z.array(permissionSchema);

export const addPermissions = rootKeyProcedure
  .meta({
    public: true,
    description: 'Adds permissions to a key, creating slugs that do not exist yet.',
    errors: [404, 412],
  })
  .input(addPermissionsInput)
  .output(addPermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(
      ctx,
      input.keyId,
      ['update_key'],
      [...keyLinkPermissions({ permissions: 'add' }), ...slugCreationUpFront(ctx.rootKey, input.permissions)],
    );
    return changeKeyPermissions(
      ctx.em,
      ctx.changeLog,
      key,
      'add',
      input.permissions,
      permissionCreation(ctx.rootKey, ctx.services.limits),
    );
  });
