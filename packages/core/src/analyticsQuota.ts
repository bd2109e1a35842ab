import { DomainError } from './errors.ts';
import type { CounterCheck } from './namespaceRatelimits.ts';

/** The reference's default: analytics queries one workspace may run per hour, across every node. */
export const DEFAULT_ANALYTICS_QUERIES_PER_HOUR = 1000;

const HOUR_MS = 3_600_000;

/** The counter one analytics query spends: one per workspace, in the shared rate-limit engine. */
export function analyticsQuotaCheck(workspaceId: string, queriesPerHour: number): CounterCheck {
  return { key: `${workspaceId}:analytics:queries:${HOUR_MS}`, limit: queriesPerHour, durationMs: HOUR_MS, cost: 1 };
}

export function analyticsQuotaExceeded(queriesPerHour: number): DomainError {
  return new DomainError(
    429,
    'user/too_many_requests/query_quota_exceeded',
    `This workspace has run its ${queriesPerHour} analytics queries of the past hour. Try again later; the rollup tables (…_per_hour_v1, …_per_day_v1) answer more in one query.`,
  );
}
