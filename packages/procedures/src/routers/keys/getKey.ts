import { keyNotFound } from '@keyplane/core';
import { findKeyDetails } from '@keyplane/db';
import { z } from 'zod';
import { authorizeDecryption } from '../../middleware/decryption.ts';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { keyResponseData, keyResponseOutput } from './keyResponse.ts';

export const getKeyInput = z.strictObject({
  keyId: resourceIdSchema,
  decrypt: z.boolean().default(false),
});

export const getKeyOutput = keyResponseOutput;

export const getKey = rootKeyProcedure
  .meta({
    public: true,
    description: 'Returns a key by its id, optionally with its plaintext when it is recoverable.',
    errors: [404, 412],
  })
  .input(getKeyInput)
  .output(getKeyOutput)
  .query(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['read_key']);
    const dataKey = input.decrypt ? await authorizeDecryption(ctx, key.apiId) : undefined;
    const details = await findKeyDetails(ctx.em, ctx.rootKey.workspaceId, { keyId: key.id });
    // Deleted between the two reads.
    if (!details) throw keyNotFound(input.keyId);
    return keyResponseData(details, ctx.services.now(), dataKey);
  });
