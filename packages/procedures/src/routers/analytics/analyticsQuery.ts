import type { AnalyticsDataset } from '@keyplane/analytics';
import { AnalyticsQueryError } from '@keyplane/analytics';
import { analyticsQuotaExceeded, DomainError, forbidden, formatPermission, parsePermission } from '@keyplane/core';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import type { RootKeyPrincipal } from '../../middleware/auth.ts';

/** Analytics bodies accept unknown fields, as the reference's do. */
export const analyticsQueryInput = z.object({ query: z.string().min(1).max(10_000) });

/** One object per row, keyed by the columns the SELECT chose. */
export const analyticsRowsOutput = z.array(z.record(z.string(), z.unknown()));

/**
 * Which rows a root key may read with `<resourceType>.*.read_analytics` (the whole workspace:
 * undefined) or `<resourceType>.<id>.read_analytics` grants (only those APIs or namespaces).
 * Without either, 403 naming the wildcard.
 */
export function analyticsScope(principal: RootKeyPrincipal, resourceType: 'api' | 'ratelimit'): string[] | undefined {
  const ids = new Set<string>();
  for (const grant of principal.permissions) {
    const tuple = parsePermission(grant);
    if (tuple?.resourceType !== resourceType || tuple.action !== 'read_analytics') continue;
    if (tuple.resourceId === '*') return undefined;
    ids.add(tuple.resourceId);
  }
  if (ids.size === 0) throw forbidden([formatPermission({ resourceType, resourceId: '*', action: 'read_analytics' })]);
  return [...ids];
}

/**
 * Runs the query for the caller's workspace, on the analytics connections; a refused query is a
 * 400 pointing into `body.query`. A workspace may have only so many queries running at once on
 * this node (more wait their turn, 429 when none comes), and only a query that passed the checks
 * counts against its hourly quota (429 past it).
 */
export async function runAnalyticsQuery(
  ctx: Context & { rootKey: RootKeyPrincipal },
  dataset: AnalyticsDataset,
  restrictTo: string[] | undefined,
  query: string,
): Promise<Record<string, unknown>[]> {
  const { services, rootKey } = ctx;
  try {
    return await services.analytics.query({
      dataset,
      workspaceId: rootKey.workspaceId,
      restrictTo,
      query,
      retentionDays: services.analyticsRetentionDays,
      admit: async () => {
        const counted = await services.analyticsQuota.consume(rootKey.workspaceId, services.analyticsQueriesPerHour);
        if (!counted.passed) throw analyticsQuotaExceeded(services.analyticsQueriesPerHour);
      },
    });
  } catch (error) {
    if (!(error instanceof AnalyticsQueryError)) throw error;
    throw new DomainError(400, `user/bad_request/${error.code}`, error.message, [
      { location: 'body.query', message: error.message },
    ]);
  }
}
