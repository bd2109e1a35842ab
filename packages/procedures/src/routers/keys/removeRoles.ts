import { changeKeyRoles } from '@keyplane/db';
import { z } from 'zod';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { rbacNameSchema, resourceIdSchema, roleSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const removeRolesInput = z.strictObject({
  keyId: resourceIdSchema,
  roles: z.array(rbacNameSchema).min(1).max(100),
});

/** The key's roles after the change, each with its permissions. */
export const removeRolesOutput = z.array(roleSchema);

export const removeRoles = rootKeyProcedure
  .meta({ public: true, description: 'Removes roles from a key.', errors: [404] })
  .input(removeRolesInput)
  .output(removeRolesOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key'], keyLinkPermissions({ roles: 'remove' }));
    return changeKeyRoles(ctx.em, ctx.changeLog, key, 'remove', input.roles);
  });
