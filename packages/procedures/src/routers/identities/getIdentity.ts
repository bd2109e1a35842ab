import { identityNotFound } from '@keyplane/core';
import { findIdentity } from '@keyplane/db';
import { z } from 'zod';
import { authorizeFound, identityPermission } from '../../middleware/auth.ts';
import { identityRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityData, identityOutput } from '../keys/keyResponse.ts';

export const getIdentityInput = z.strictObject({ identity: identityRefSchema });

export const getIdentityOutput = identityOutput;

/**
 * The identity, for `identity.<id>.read_identity` or the wildcard (403 naming the wildcard). A
 * caller told 404 is one that could read it if it existed (docs/contract.md#authorization-order):
 * to others an unknown externalId and an identity they may not read are the same 403.
 */
export const getIdentity = rootKeyProcedure
  .meta({ public: true, description: 'Returns an identity, named by its id or its externalId.', errors: [404] })
  .input(getIdentityInput)
  .output(getIdentityOutput)
  .query(async ({ ctx, input }) => {
    const read = (identityId: string) => identityPermission(identityId, 'read_identity');
    const identity = authorizeFound(ctx.rootKey, {
      found: await findIdentity(ctx.em, ctx.rootKey.workspaceId, input.identity),
      notFound: identityNotFound,
      required: (found) => [read(found.id)],
      wildcards: [read('*')],
      named: [read(input.identity)],
    });
    return identityData(identity);
  });
