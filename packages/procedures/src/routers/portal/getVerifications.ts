import { badRequest, portalUsagePoints } from '@keyplane/core';
import { listCustomerVerifications } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { portalProcedure } from '../../trpc.ts';
import { loadCustomerKey } from './customerKeys.ts';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
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

const wholeNumber = z.number().int();

/**
 * The reference's data points (its SDK parses them): one per bucket starting in the range, oldest
 * first, zero-filled; hours for a range of up to 7 days, days (UTC) beyond.
 */
export const getVerificationsOutput = z.array(
  z.object({
    /** The bucket's start, unix ms. */
    time: wholeNumber,
    /** Every verification of the bucket, whatever its outcome. */
    total: wholeNumber,
    valid: wholeNumber,
    rateLimited: wholeNumber,
    insufficientPermissions: wholeNumber,
    forbidden: wholeNumber,
    disabled: wholeNumber,
    expired: wholeNumber,
    usageExceeded: wholeNumber,
  }),
);

/** The customer's usage over time, of all their keys or one, per outcome, from the verification rollups. */
export const getVerifications = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "The portal customer's verifications over time, of all their keys or of one, per outcome.",
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
    const counts = await listCustomerVerifications(ctx.em, {
      workspaceId: portal.workspaceId,
      apiId: portal.apiId,
      externalId: portal.externalId,
      keyId: input.keyId,
      from: input.startTime,
      to: input.endTime,
      granularity,
    });
    return portalUsagePoints(counts, {
      from: input.startTime,
      to: input.endTime,
      bucketMs: granularity === 'hour' ? HOUR_MS : DAY_MS,
    });
  });
