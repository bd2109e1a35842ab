import { changeKeyPermissions } from '@keyplane/db';
import { z } from 'zod';
import { permissionCreation, slugCreationUpFront } from '../../middleware/auth.ts';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { permissionSchema, rbacNameSchema, resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const setPermissionsInput = z.strictObject({
  keyId: resourceIdSchema,
  permissions: z.array(rbacNameSchema).max(1000),
});

/** The key's direct permissions after the change. */
export const setPermissionsOutput = z.array(permissionSchema);

export const setPermissions = rootKeyProcedure
  .meta({
    public: true,
    description: "Replaces a key's permissions, creating slugs that do not exist yet.",
    errors: [404, 412],
  })
  .input(setPermissionsInput)
  .output(setPermissionsOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(
      ctx,
      input.keyId,
      ['update_key'],
      [...keyLinkPermissions({ permissions: 'set' }), ...slugCreationUpFront(ctx.rootKey, input.permissions)],
    );
    return changeKeyPermissions(
      ctx.em,
      ctx.changeLog,
      key,
      'set',
      input.permissions,
      permissionCreation(ctx.rootKey, ctx.services.limits),
    );
  });
