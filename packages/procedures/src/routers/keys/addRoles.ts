import { changeKeyRoles } from '@keyplane/db';
import { z } from 'zod';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { rbacNameSchema, resourceIdSchema, roleSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const addRolesInput = z.strictObject({
  keyId: resourceIdSchema,
  roles: z.array(rbacNameSchema).min(1).max(100),
});

/** The key's roles after the change, each with its permissions. */
export const addRolesOutput = z.array(roleSchema);

export const addRoles = rootKeyProcedure
  .meta({ public: true, description: 'Adds existing roles to a key.', errors: [404, 412] })
  .input(addRolesInput)
  .output(addRolesOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key'], keyLinkPermissions({ roles: 'add' }));
    return changeKeyRoles(ctx.em, ctx.changeLog, key, 'add', input.roles);
  });
