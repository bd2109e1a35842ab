import { badRequest, notFound } from '@keyplane/core';
import { setRootKeyExpiry } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const updateRootKeyInput = z.strictObject({
  rootKeyId: resourceIdSchema.max(64),
  /** Unix ms when the key stops working (now or later); null removes the expiry. */
  expires: z.number().int().positive().nullable(),
});

export const updateRootKeyOutput = z.object({});

/** Internal (dashboard and typed client only): sets or clears a root key's expiry, at once on every node. */
export const updateRootKey = rootKeyProcedure
  .input(updateRootKeyInput)
  .output(updateRootKeyOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    // A little slack, so "expire now" from a browser with a clock a moment behind is not refused.
    if (input.expires !== null && input.expires < ctx.services.now() - 60_000) {
      throw badRequest('`expires` must not be in the past.', [
        { location: 'body.expires', message: 'must be now or later (unix ms), or null to remove the expiry' },
      ]);
    }
    const { workspaceId } = ctx.rootKey;
    if (!(await setRootKeyExpiry(ctx.em, workspaceId, input.rootKeyId, input.expires))) {
      throw notFound('root_key', `The root key '${input.rootKeyId}' was not found.`);
    }
    await settle(ctx.services, { workspaceId });
    return {};
  });
