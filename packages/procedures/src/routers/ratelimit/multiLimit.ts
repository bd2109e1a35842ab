import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { applyLimits, limitRequestSchema } from './limiting.ts';

/** A bare JSON array of 1–100 `ratelimit.limit` requests (docs/contract.md#limiting). */
export const multiLimitInput = z.array(limitRequestSchema).min(1).max(100);

export const multiLimitOutput = z.object({
  passed: z.boolean(),
  limits: z.array(
    z.object({
      namespace: z.string(),
      identifier: z.string(),
      limit: z.number(),
      remaining: z.number(),
      reset: z.number(),
      passed: z.boolean(),
      overrideId: z.string().optional(),
    }),
  ),
});

/**
 * All-or-nothing: `passed` only if every check passes, and then every counter is charged; if any
 * fails none is, a failing entry's `remaining` is 0 and each other entry's is what it was before
 * the call. Entries come back in request order, each `passed` saying whether that check alone
 * would have passed.
 */
export const multiLimit = rootKeyProcedure
  .meta({
    public: true,
    audit: false,
    description: 'Checks several limits at once, all or nothing: a rejected request counts against none of them.',
    errors: [410, 412],
  })
  .input(multiLimitInput)
  .output(multiLimitOutput)
  .mutation(({ ctx, input }) => applyLimits(ctx, input));
