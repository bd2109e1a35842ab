import { changeKeyRoles } from '@keyplane/db';
import { z } from 'zod';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import { rbacNameSchema, resourceIdSchema, roleSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const setRolesInput = z.strictObject({
  keyId: resourceIdSchema,
  roles: z.array(rbacNameSchema).max(100),
});

/** The key's roles after the change, each with its permissions. */
export const setRolesOutput = z.array(roleSchema);

export const setRoles = rootKeyProcedure
  .meta({ public: true, description: "Replaces a key's roles with existing roles.", errors: [404, 412] })
  .input(setRolesInput)
  .output(setRolesOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key'], keyLinkPermissions({ roles: 'set' }));
    return changeKeyRoles(ctx.em, ctx.changeLog, key, 'set', input.roles);
  });
