import { listKeyVerifications } from '@keyplane/events';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listVerificationsInput = z.strictObject({
  keyId: resourceIdSchema,
  limit: z.number().int().min(1).max(100).default(20),
});

export const listVerificationsOutput = z.object({
  data: z.array(
    z.object({
      time: z.number().int(),
      requestId: z.string(),
      outcome: z.string(),
      tags: z.array(z.string()),
      spentCredits: z.number().int(),
      latencyMs: z.number(),
    }),
  ),
});

/**
 * Internal (the dashboard's key page): the key's latest verifications, newest first. The key (404),
 * then `read_key` and `read_analytics` on its API (403): its events are analytics of that API.
 */
export const listVerifications = rootKeyProcedure
  .input(listVerificationsInput)
  .output(listVerificationsOutput)
  .query(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['read_key', 'read_analytics']);
    return { data: await listKeyVerifications(ctx.em, ctx.rootKey.workspaceId, key.id, input.limit) };
  });
