import { badRequest, CREDITS_UPDATE_DETAILS, type CreditsUpdate, updateKeyCredits } from '@keyplane/core';
import { keyCreditsStore } from '@keyplane/db';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
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
  .meta({ public: true, description: "Sets, increments or decrements a key's remaining credits.", errors: [404] })
  .input(updateCreditsInput)
  .output(updateCreditsOutput)
  .mutation(async ({ ctx, input }) => {
    const update = creditsUpdate(input);
    const key = await loadAuthorizedKey(ctx, input.keyId, ['update_key']);
    const now = ctx.services.now();
    const credits = await ctx.em.transactional((tx) =>
      updateKeyCredits(keyCreditsStore(tx, ctx.changeLog), {
        workspaceId: key.workspaceId,
        keyId: key.id,
        update,
        now,
      }),
    );
    return keyCreditsData(credits, now);
  });
