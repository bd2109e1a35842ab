// The analytics SQL behind the Usage screen. The server parses and restricts every query to the
// workspace (and the root key's APIs or namespaces); this only has to ask for the right rollup.

export type TimeRange = 'hour' | 'day' | 'week' | 'month';

interface RangeSpec {
  label: string;
  /** The rollup whose buckets fit the range. */
  granularity: 'minute' | 'hour' | 'day';
  bucketMs: number;
  buckets: number;
}

export const TIME_RANGES: Record<TimeRange, RangeSpec> = {
  hour: { label: 'Last hour', granularity: 'minute', bucketMs: 60_000, buckets: 60 },
  day: { label: 'Last 24 hours', granularity: 'hour', bucketMs: 3_600_000, buckets: 24 },
  week: { label: 'Last 7 days', granularity: 'hour', bucketMs: 3_600_000, buckets: 168 },
  month: { label: 'Last 30 days', granularity: 'day', bucketMs: 86_400_000, buckets: 30 },
};

/** The bucket starts (UTC, as the rollups store them) of a range ending with the current bucket. */
export function bucketStarts(range: TimeRange, now: number): number[] {
  const { bucketMs, buckets } = TIME_RANGES[range];
  const current = Math.floor(now / bucketMs) * bucketMs;
  return Array.from({ length: buckets }, (_, index) => current - (buckets - 1 - index) * bucketMs);
}

export interface VerificationFilters {
  apiId?: string;
  keyId?: string;
  identityId?: string;
}

/** Ids are letters, digits and underscores; anything else cannot match and is refused before SQL. */
const ID_PATTERN = /^[a-zA-Z0-9_]+$/;

function equals(column: string, value: string | undefined): string[] {
  if (!value) return [];
  if (!ID_PATTERN.test(value)) throw new Error(`Not a valid id: ${value}`);
  return [`${column} = '${value}'`];
}

/** Verifications and credits spent per bucket and outcome. */
export function verificationsQuery(range: TimeRange, from: number, filters: VerificationFilters): string {
  const conditions = [
    `time >= ${from}`,
    ...equals('api_id', filters.apiId),
    ...equals('key_id', filters.keyId),
    ...equals('identity_id', filters.identityId),
  ];
  return [
    'SELECT time, outcome, SUM(count) AS total, SUM(spent_credits) AS credits',
    `FROM key_verifications_per_${TIME_RANGES[range].granularity}_v1`,
    `WHERE ${conditions.join(' AND ')}`,
    'GROUP BY time, outcome ORDER BY time',
  ].join(' ');
}

/** Rate-limit decisions per bucket, passed or limited; of one namespace when its id is given. */
export function ratelimitsQuery(range: TimeRange, from: number, namespaceId?: string): string {
  const conditions = [`time >= ${from}`, ...equals('namespace_id', namespaceId)];
  return [
    'SELECT time, passed, SUM(count) AS total',
    `FROM ratelimits_per_${TIME_RANGES[range].granularity}_v1`,
    `WHERE ${conditions.join(' AND ')}`,
    'GROUP BY time, passed ORDER BY time',
  ].join(' ');
}

/** Analytics numbers arrive as JSON numbers, or strings past 2^53. */
export function toCount(value: unknown): number {
  const count = Number(value);
  return Number.isFinite(count) ? count : 0;
}

/**
 * Whether two of these queries differ only in where their range starts: the same chart moved on
 * with the clock, whose earlier answer can stand in while the new one loads.
 */
export function differOnlyInStart(a: string, b: string): boolean {
  const withoutStart = (query: string) => query.replace(/time >= \d+/, '');
  return withoutStart(a) === withoutStart(b);
}
