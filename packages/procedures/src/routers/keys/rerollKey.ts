import { rerollKey as replaceKey } from '@keyplane/core';
import { keyRerollStore } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { MAX_EXPIRES, resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const rerollKeyInput = z.strictObject({
  keyId: resourceIdSchema,
  /** Milliseconds until the old key expires. */
  expiration: z.number().int().min(0).max(MAX_EXPIRES),
});

export const rerollKeyOutput = z.object({
  keyId: z.string(),
  key: z.string(),
});

export const rerollKey = rootKeyProcedure
  .meta({
    public: true,
    description: 'Creates a new key with the settings of an existing one, which then expires after `expiration` ms.',
    errors: [404, 412],
  })
  .input(rerollKeyInput)
  .output(rerollKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['create_key']);
    return ctx.em.transactional((tx) =>
      replaceKey(keyRerollStore(tx, ctx.changeLog), {
        workspaceId: key.workspaceId,
        keyId: key.id,
        expirationMs: input.expiration,
        now: ctx.services.now(),
        vaultMasterKey: ctx.vaultMasterKey,
        authorizeEncryption: () => requirePermissions(ctx.rootKey, [apiPermission(key.apiId, 'encrypt_key')]),
      }),
    );
  });
