import { rootKeyProcedure } from '../../trpc.ts';
import { analyticsQueryInput, analyticsRowsOutput, analyticsScope, runAnalyticsQuery } from './analyticsQuery.ts';

export const getRatelimitsInput = analyticsQueryInput;

export const getRatelimitsOutput = analyticsRowsOutput;

/**
 * A SELECT over ratelimits_v1 and its per_minute/hour/day/month rollups, limited to the workspace
 * and, for namespace-scoped root keys, to their namespaces.
 */
export const getRatelimits = rootKeyProcedure
  .meta({
    public: true,
    description: "Runs a read-only SQL query over the workspace's rate-limit events and their rollups.",
    errors: [422],
  })
  .input(getRatelimitsInput)
  .output(getRatelimitsOutput)
  .query(({ ctx, input }) =>
    runAnalyticsQuery(ctx, 'ratelimits', analyticsScope(ctx.rootKey, 'ratelimit'), input.query),
  );
