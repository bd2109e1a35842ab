import { changeKeyRoles } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission } from '../../middleware/auth.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { rbacNameSchema, resourceIdSchema, roleSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const addRolesInput = z.strictObject({
  keyId: resourceIdSchema,
  roles: z.array(rbacNameSchema).min(1).max(100),
});

/** The key's roles after the change, each with its permissions. */
export const addRolesOutput = z.array(roleSchema);

export const addRoles = rootKeyProcedure
  .meta({ public: true })
  .input(addRolesInput)
  .output(addRolesOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key'], [rbacPermission('add_role_to_key')]);
    const { roles, invalidation } = await changeKeyRoles(ctx.em, key, 'add', input.roles);
    await settle(ctx.services, invalidation);
    return roles;
  });
