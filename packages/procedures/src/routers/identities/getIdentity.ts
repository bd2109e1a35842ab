import { identityNotFound } from '@keyplane/core';
import { findIdentity } from '@keyplane/db';
import { z } from 'zod';
import { requireIdentityReads } from '../../middleware/auth.ts';
import { identityRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityData, identityOutput } from '../keys/keyResponse.ts';

export const getIdentityInput = z.strictObject({ identity: identityRefSchema });

export const getIdentityOutput = identityOutput;

/** In the reference order: the lookup (404), then `identity.<id>.read_identity` or the wildcard (403). */
export const getIdentity = rootKeyProcedure
  .meta({ public: true, description: 'Returns an identity, named by its id or its externalId.', errors: [404] })
  .input(getIdentityInput)
  .output(getIdentityOutput)
  .query(async ({ ctx, input }) => {
    const identity = await findIdentity(ctx.em, ctx.rootKey.workspaceId, input.identity);
    if (!identity) throw identityNotFound();
    requireIdentityReads(ctx.rootKey, [identity.id]);
    return identityData(identity);
  });
