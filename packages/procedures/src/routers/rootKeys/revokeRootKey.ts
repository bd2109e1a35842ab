import { revokeRootKey as revokeRootKeyRule, rootKeyNotFound } from '@keyplane/core';
import { rootKeyChangeStore } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const revokeRootKeyInput = z.strictObject({ rootKeyId: resourceIdSchema.max(64) });

export const revokeRootKeyOutput = z.object({});

/**
 * Internal (dashboard and typed client only). Every node refuses the key, and every dashboard
 * session opened with it, by the time this returns. Revoking twice is not an error. Only for a key
 * whose every permission the caller holds (403 naming the others).
 */
export const revokeRootKey = rootKeyProcedure
  .input(revokeRootKeyInput)
  .output(revokeRootKeyOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    const revoked = await ctx.em.transactional((tx) =>
      revokeRootKeyRule(rootKeyChangeStore(tx, ctx.changeLog), { rootKeyId: input.rootKeyId, manager: ctx.rootKey }),
    );
    if (!revoked) throw rootKeyNotFound(input.rootKeyId);
    return {};
  });
