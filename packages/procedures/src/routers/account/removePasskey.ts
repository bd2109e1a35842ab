import { passkeyNotFound } from '@keyplane/core';
import { removePasskey as remove } from '@keyplane/db';
import { z } from 'zod';
import { resourceIdSchema } from '../../schemas.ts';
import { personProcedure } from '../../trpc.ts';

export const removePasskeyInput = z.strictObject({ passkeyId: resourceIdSchema.max(64) });

export const removePasskeyOutput = z.object({});

/**
 * Internal (the dashboard): removes one of the signed-in person's passkeys, which then signs no
 * one in; 404 for any other id. Sessions it started go on (signing out everywhere ends them).
 */
export const removePasskey = personProcedure
  .input(removePasskeyInput)
  .output(removePasskeyOutput)
  .mutation(async ({ ctx, input }) => {
    if (!(await remove(ctx.em, ctx.person.userId, input.passkeyId))) throw passkeyNotFound(input.passkeyId);
    return {};
  });
