import { passkeyNotFound } from '@keyplane/core';
import { renamePasskey as rename } from '@keyplane/db';
import { z } from 'zod';
import { resourceIdSchema } from '../../schemas.ts';
import { personProcedure } from '../../trpc.ts';
import { passkeyNameSchema } from './passkeyResponses.ts';

export const renamePasskeyInput = z.strictObject({ passkeyId: resourceIdSchema.max(64), name: passkeyNameSchema });

export const renamePasskeyOutput = z.object({});

/** Internal (the dashboard): renames one of the signed-in person's passkeys; 404 for any other id. */
export const renamePasskey = personProcedure
  .input(renamePasskeyInput)
  .output(renamePasskeyOutput)
  .mutation(async ({ ctx, input }) => {
    if (!(await rename(ctx.em, ctx.person.userId, input.passkeyId, input.name))) throw passkeyNotFound(input.passkeyId);
    return {};
  });
