import { badRequest } from '@keyplane/core';
import { listCustomerVerifications } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { portalProcedure } from '../../trpc.ts';
import { loadCustomerKey } from './customerKeys.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The widest range one call may ask for. */
const MAX_RANGE_MS = 400 * DAY_MS;

export const getVerificationsInput = z.strictObject({
  /** Unix ms, inclusive. */
  startTime: z.number().int().min(0),
  /** Unix ms, exclusive. */
  endTime: z.number().int().min(0),
  /** Only this key of the customer's. */
  keyId: resourceIdSchema.optional(),
});

export const getVerificationsOutput = z.object({
  /** Hours for a range of up to 7 days, days beyond. */
  granularity: z.enum(['hour', 'day']),
  /** Per bucket (its start, unix ms), key and outcome (`VALID`, `RATE_LIMITED`, …): sum them for totals. */
  verifications: z.array(z.object({ time: z.number(), keyId: z.string(), outcome: z.string(), count: z.number() })),
});

/** The customer's usage over time, per key and outcome, from the verification rollups. */
export const getVerifications = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "The portal customer's verifications over time, per key and outcome.",
    errors: [404],
  })
  .input(getVerificationsInput)
  .output(getVerificationsOutput)
  .query(async ({ ctx, input }) => {
    const { portal } = ctx;
    requireScope(portal, 'analytics:read');
    if (input.endTime <= input.startTime || input.endTime - input.startTime > MAX_RANGE_MS) {
      throw badRequest('`endTime` must be after `startTime`, and the range at most 400 days.', [
        { location: 'body.endTime', message: 'must be after startTime, within 400 days of it' },
      ]);
    }
    if (input.keyId !== undefined) await loadCustomerKey(ctx, input.keyId);
    const granularity = input.endTime - input.startTime <= 7 * DAY_MS ? 'hour' : 'day';
    const verifications = await listCustomerVerifications(ctx.em, {
      workspaceId: portal.workspaceId,
      apiId: portal.apiId,
      externalId: portal.externalId,
      keyId: input.keyId,
      from: input.startTime,
      to: input.endTime,
      granularity,
    });
    return { granularity, verifications };
  });
