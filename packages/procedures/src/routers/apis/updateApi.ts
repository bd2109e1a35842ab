import { apiNotFound } from '@keyplane/core';
import { updateApi as updateApiRecord } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema, apiNameSchema, keyByteLengthSchema, keyPrefixSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** Our addition: the API's settings. Absent fields are left alone; null clears a default. */
export const updateApiInput = z.strictObject({
  apiId: apiIdSchema,
  name: apiNameSchema.optional(),
  keyAuth: z.strictObject({ enabled: z.boolean() }).optional(),
  encryption: z.strictObject({ enabled: z.boolean() }).optional(),
  defaultPrefix: keyPrefixSchema.nullable().optional(),
  defaultBytes: keyByteLengthSchema.nullable().optional(),
  deleteProtection: z.boolean().optional(),
});

export const updateApiOutput = z.object({});

export const updateApi = rootKeyProcedure
  .meta({
    public: true,
    description: "Changes an API's name or settings (key authentication, encryption, defaults, delete protection).",
    errors: [404],
  })
  .input(updateApiInput)
  .output(updateApiOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'update_api')]);
    const updated = await updateApiRecord(ctx.em, ctx.rootKey.workspaceId, input.apiId, {
      name: input.name,
      keyAuthEnabled: input.keyAuth?.enabled,
      encryptionEnabled: input.encryption?.enabled,
      defaultPrefix: input.defaultPrefix,
      defaultBytes: input.defaultBytes,
      deleteProtection: input.deleteProtection,
    });
    if (!updated) throw apiNotFound(input.apiId);
    return {};
  });
