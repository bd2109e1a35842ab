import { createKey as createNewKey } from '@keyplane/core';
import { keyCreationStore } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import {
  apiIdSchema,
  createKeyRbacNameSchema,
  creditsSchema,
  expiresSchema,
  externalIdSchema,
  keyByteLengthSchema,
  keyNameSchema,
  keyPrefixSchema,
  metaSchema,
  ratelimitsSchema,
} from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createKeyInput = z.strictObject({
  apiId: apiIdSchema,
  prefix: keyPrefixSchema.optional(),
  name: keyNameSchema.optional(),
  byteLength: keyByteLengthSchema.optional(),
  externalId: externalIdSchema.optional(),
  meta: metaSchema.optional(),
  roles: z.array(createKeyRbacNameSchema).max(100).optional(),
  permissions: z.array(createKeyRbacNameSchema).max(1000).optional(),
  expires: expiresSchema.optional(),
  credits: creditsSchema.optional(),
  ratelimits: ratelimitsSchema.optional(),
  enabled: z.boolean().default(true),
  recoverable: z.boolean().default(false),
});

export const createKeyOutput = z
  .object({
    keyId: z.string(),
    key: z.string().describe('The key itself: shown only in this answer (unless the key is recoverable).'),
  })
  .meta({ examples: [{ keyId: 'key_2cGKbMxRyIzhCxo1Idjz8q', key: 'sk_3ZZ9kPbXhg6Yv4ZqZrFBuPQJ' }] });

export const createKey = rootKeyProcedure
  .meta({
    public: true,
    description:
      'Creates a key on an API; its secret is in this answer and, unless the key is recoverable, nowhere else.',
    errors: [404, 412],
  })
  .input(createKeyInput)
  .output(createKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const { expires, ...params } = input;
    requirePermissions(ctx.rootKey, [
      apiPermission(input.apiId, 'create_key'),
      ...(input.recoverable ? [apiPermission(input.apiId, 'encrypt_key')] : []),
    ]);
    return ctx.em.transactional((tx) =>
      createNewKey(keyCreationStore(tx, ctx.changeLog, ctx.services.limits), {
        ...params,
        workspaceId: ctx.rootKey.workspaceId,
        vaultMasterKey: ctx.vaultMasterKey,
        expiresAt: expires === undefined ? undefined : new Date(expires),
      }),
    );
  });
