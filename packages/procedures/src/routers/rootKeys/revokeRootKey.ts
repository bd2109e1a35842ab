import { notFound } from '@keyplane/core';
import { revokeRootKey as revokeRootKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const revokeRootKeyInput = z.strictObject({ rootKeyId: resourceIdSchema.max(64) });

export const revokeRootKeyOutput = z.object({});

/**
 * Internal (dashboard and typed client only). Every node refuses the key, and every dashboard
 * session opened with it, by the time this returns. Revoking twice is not an error.
 */
export const revokeRootKey = rootKeyProcedure
  .input(revokeRootKeyInput)
  .output(revokeRootKeyOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    const { workspaceId } = ctx.rootKey;
    if (!(await revokeRootKeyRecord(ctx.em, input.rootKeyId, workspaceId))) {
      throw notFound('root_key', `The root key '${input.rootKeyId}' was not found.`);
    }
    await settle(ctx.services, { workspaceId });
    return {};
  });
