import { badRequest, CREDITS_UPDATE_DETAILS } from '@keyplane/core';
import { type CreditsUpdate, updateKeyCredits } from '@keyplane/db';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { keyCreditsData, keyCreditsOutput } from './keyResponse.ts';

export const updateCreditsInput = z.strictObject({
  keyId: resourceIdSchema,
  operation: z.enum(['set', 'increment', 'decrement']),
  value: z.number().int().min(0).nullable().optional(),
});

export const updateCreditsOutput = keyCreditsOutput;

function creditsUpdate({ operation, value }: z.infer<typeof updateCreditsInput>): CreditsUpdate {
  if (operation === 'set') return { operation, value };
  if (value === undefined || value === null) {
    throw badRequest(CREDITS_UPDATE_DETAILS.valueRequired, [
      { location: 'body.value', message: CREDITS_UPDATE_DETAILS.valueRequired },
    ]);
  }
  return { operation, value };
}

export const updateCredits = rootKeyProcedure
  .meta({ public: true })
  .input(updateCreditsInput)
  .output(updateCreditsOutput)
  .mutation(async ({ ctx, input }) => {
    const update = creditsUpdate(input);
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key']);
    const now = ctx.services.now();
    const { credits, change } = await updateKeyCredits(ctx.em, key.workspaceId, key.id, update, now);
    // The cache holds whether the key's credits are limited and its refill.
    await settle(ctx.services, change);
    return keyCreditsData(credits, now);
  });
