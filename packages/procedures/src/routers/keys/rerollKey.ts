import { rerollKey as rerollKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { MAX_EXPIRES, resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
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
  .meta({ public: true })
  .input(rerollKeyInput)
  .output(rerollKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['create_key']);
    const { change, ...created } = await rerollKeyRecord(
      ctx.em,
      { workspaceId: key.workspaceId, vaultMasterKey: ctx.vaultMasterKey },
      {
        keyId: key.id,
        expirationMs: input.expiration,
        now: ctx.services.now(),
        authorizeEncryption: () => requirePermissions(ctx.rootKey, [apiPermission(key.apiId, 'encrypt_key')]),
      },
    );
    // The old key's expiry changed: this node must not serve it from its cache as before.
    await settle(ctx.services, change);
    return created;
  });
