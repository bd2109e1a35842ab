import { migrateKeys as importKeys } from '@keyplane/core';
import { keyMigrationStore, MAX_KEY_HASH_LENGTH } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import {
  apiIdSchema,
  creditsSchema,
  expiresSchema,
  keyNameSchema,
  metaSchema,
  ratelimitsSchema,
  rbacNameSchema,
  textSchema,
} from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

/** Keys one keys.migrateKeys call imports at most. */
export const MAX_MIGRATE_KEYS = 1000;

export const migrateKeysInput = z.strictObject({
  migrationId: textSchema.min(3).max(255),
  apiId: apiIdSchema,
  // At most MAX_MIGRATE_KEYS, where the reference has no maximum: one call is one transaction, and
  // its cost (and how long it holds the node) grows with its keys (docs/contract.md#limits).
  keys: z
    .array(
      z.strictObject({
        // The hash in the customer's old system; a SHA-256 digest in hex or base64 is stored in our form.
        hash: textSchema
          .min(3)
          .max(MAX_KEY_HASH_LENGTH, `must be at most ${MAX_KEY_HASH_LENGTH} characters, the longest hash stored`),
        name: keyNameSchema.optional(),
        // Unlike createKey's, any text (docs/contract.md#importing-keys).
        externalId: textSchema.min(1).max(255).optional(),
        meta: metaSchema.optional(),
        roles: z.array(rbacNameSchema).max(100).optional(),
        permissions: z.array(rbacNameSchema).max(1000).optional(),
        expires: expiresSchema.optional(),
        enabled: z.boolean().default(true),
        credits: creditsSchema.optional(),
        ratelimits: ratelimitsSchema.optional(),
      }),
    )
    .min(1)
    .max(MAX_MIGRATE_KEYS, `must hold at most ${MAX_MIGRATE_KEYS} keys; import more in several calls`),
});

export const migrateKeysOutput = z.object({
  migrated: z.array(z.object({ hash: z.string(), keyId: z.string() })),
  /** Hashes that are already taken (they are unique across the service) or repeated in the request. */
  failed: z.array(z.string()),
});

export const migrateKeys = rootKeyProcedure
  .meta({
    public: true,
    description: 'Imports keys hashed by another system under a migration, reporting hashes that are taken.',
    errors: [404, 412],
  })
  .input(migrateKeysInput)
  .output(migrateKeysOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'create_key')]);
    return ctx.em.transactional((tx) =>
      importKeys(keyMigrationStore(tx, ctx.changeLog, ctx.services.limits), {
        workspaceId: ctx.rootKey.workspaceId,
        migrationId: input.migrationId,
        apiId: input.apiId,
        keys: input.keys.map(({ expires, ...key }) => ({
          ...key,
          expiresAt: expires === undefined ? undefined : new Date(expires),
        })),
      }),
    );
  });
