import { updateKey as updateKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { permissionCreation, slugCreationUpFront } from '../../middleware/auth.ts';
import { keyLinkPermissions, loadAuthorizedKey } from '../../middleware/keys.ts';
import {
  expiresSchema,
  externalIdSchema,
  keyNameSchema,
  metaSchema,
  ratelimitsSchema,
  rbacNameSchema,
  resourceIdSchema,
  updateCreditsSchema,
} from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const updateKeyInput = z.strictObject({
  keyId: resourceIdSchema,
  name: keyNameSchema.nullable().optional(),
  externalId: externalIdSchema.nullable().optional(),
  meta: metaSchema.nullable().optional(),
  expires: expiresSchema.nullable().optional(),
  credits: updateCreditsSchema.nullable().optional(),
  ratelimits: ratelimitsSchema.optional(),
  enabled: z.boolean().optional(),
  roles: z.array(rbacNameSchema).max(100).optional(),
  permissions: z.array(rbacNameSchema).max(1000).optional(),
});

export const updateKeyOutput = z.object({});

export const updateKey = rootKeyProcedure
  .meta({ public: true, description: "Changes a key's fields; fields left out stay as they are.", errors: [404, 412] })
  .input(updateKeyInput)
  .output(updateKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const { keyId, expires, ...changes } = input;
    // Roles and permissions are replaced as keys.setRoles and keys.setPermissions replace them.
    const key = await loadAuthorizedKey(
      ctx,
      keyId,
      ['update_key'],
      [
        ...keyLinkPermissions({
          roles: changes.roles === undefined ? undefined : 'set',
          permissions: changes.permissions === undefined ? undefined : 'set',
        }),
        ...slugCreationUpFront(ctx.rootKey, changes.permissions),
      ],
    );
    await updateKeyRecord(
      ctx.em,
      ctx.changeLog,
      key,
      { ...changes, expiresAt: expires === undefined || expires === null ? expires : new Date(expires) },
      permissionCreation(ctx.rootKey, ctx.services.limits),
    );
    return {};
  });
