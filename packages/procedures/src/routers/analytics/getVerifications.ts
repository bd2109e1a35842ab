import { rootKeyProcedure } from '../../trpc.ts';
import { analyticsQueryInput, analyticsRowsOutput, analyticsScope, runAnalyticsQuery } from './analyticsQuery.ts';

export const getVerificationsInput = analyticsQueryInput;

export const getVerificationsOutput = analyticsRowsOutput;

/**
 * A SELECT over key_verifications_v1 and its per_minute/hour/day/month rollups, limited to the
 * workspace and, for API-scoped root keys, to their APIs.
 */
export const getVerifications = rootKeyProcedure
  .meta({
    public: true,
    description: "Runs a read-only SQL query over the workspace's key verification events and their rollups.",
    errors: [422],
  })
  .input(getVerificationsInput)
  .output(getVerificationsOutput)
  .query(({ ctx, input }) => runAnalyticsQuery(ctx, 'verifications', analyticsScope(ctx.rootKey, 'api'), input.query));
