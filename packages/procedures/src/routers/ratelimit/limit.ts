import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { applyLimits, limitRequestSchema } from './limiting.ts';

export const limitInput = limitRequestSchema;

export const limitOutput = z
  .object({
    limit: z.number(),
    remaining: z.number(),
    reset: z.number(),
    success: z.boolean(),
    overrideId: z.string().optional(),
  })
  .meta({ examples: [{ limit: 100, remaining: 99, reset: 1_764_000_060_000, success: true }] });

/**
 * One check (docs/contract.md#limiting): the namespace by id or name, created on first use; an override of
 * the identifier replaces the limit and duration. A denial is a 200 with `success: false`.
 */
export const limit = rootKeyProcedure
  .meta({
    public: true,
    audit: false,
    description: 'Counts a request of an identifier against a limit, creating the namespace if it does not exist.',
    errors: [410, 412],
  })
  .input(limitInput)
  .output(limitOutput)
  .mutation(async ({ ctx, input }) => {
    const { limits } = await applyLimits(ctx, [input]);
    const [decision] = limits;
    if (!decision) throw new Error('a limit check gave no decision');
    const { limit: applied, remaining, reset, passed, overrideId } = decision;
    return { limit: applied, remaining, reset, success: passed, ...(overrideId === undefined ? {} : { overrideId }) };
  });
