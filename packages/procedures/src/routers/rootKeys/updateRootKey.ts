import { badRequest, rootKeyNotFound, setRootKeyExpiry } from '@keyplane/core';
import { rootKeyChangeStore } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const updateRootKeyInput = z.strictObject({
  rootKeyId: resourceIdSchema.max(64),
  /** Unix ms when the key stops working (now or later); null removes the expiry. */
  expires: z.number().int().positive().nullable(),
});

export const updateRootKeyOutput = z.object({});

/**
 * Internal (dashboard and typed client only): sets or clears a root key's expiry, at once on every
 * node. Only for a key whose every permission the caller holds, and never making a key live longer
 * than the caller will unless it already does (403).
 */
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
    const changed = await ctx.em.transactional((tx) =>
      setRootKeyExpiry(rootKeyChangeStore(tx, ctx.changeLog), {
        rootKeyId: input.rootKeyId,
        expiresAt: input.expires,
        manager: ctx.rootKey,
      }),
    );
    if (!changed) throw rootKeyNotFound(input.rootKeyId);
    return {};
  });
