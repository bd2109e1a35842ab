import { hashKey, keyNotFound } from '@keyplane/core';
import { findKeyDetails } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { keyResponseData, keyResponseOutput } from './keyResponse.ts';

export const whoamiInput = z.strictObject({
  key: z.string().min(1).max(512),
});

export const whoamiOutput = keyResponseOutput.omit({ plaintext: true });

/** Identifies a key string without verifying it: no credits spent, no limits counted, no event recorded. */
export const whoami = rootKeyProcedure
  .meta({ public: true, description: 'Returns the key that a secret belongs to.', errors: [404] })
  .input(whoamiInput)
  .output(whoamiOutput)
  .query(async ({ ctx, input }) => {
    const key = await findKeyDetails(ctx.em, ctx.rootKey.workspaceId, { hash: hashKey(input.key) });
    if (!key) throw keyNotFound();
    requirePermissions(ctx.rootKey, [apiPermission(key.apiId, 'read_key')]);
    return keyResponseData(key, ctx.services.now());
  });
