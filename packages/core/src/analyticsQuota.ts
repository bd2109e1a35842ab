import { DomainError } from './errors.ts';

/** The reference's default: analytics queries one workspace may run per hour, across every node. */
export const DEFAULT_ANALYTICS_QUERIES_PER_HOUR = 1000;

/** The analytics quota's window, in seconds: the limit is queries per hour. */
export const ANALYTICS_QUOTA_WINDOW_SECONDS = 3600;

export function analyticsQuotaExceeded(queriesPerHour: number): DomainError {
  return new DomainError(
    429,
    'user/too_many_requests/query_quota_exceeded',
    `This workspace has run its ${queriesPerHour} analytics queries of the past hour. Try again later; the rollup tables (…_per_hour_v1, …_per_day_v1) answer more in one query.`,
  );
}
