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
  /** An outcome code, such as `RATE_LIMITED`. */
  outcome?: string;
  /** One tag the verification was made with; rollups keep no tags, so a tag filter reads the raw events. */
  tag?: string;
}

/** Ids are letters, digits and underscores; anything else cannot match and is refused before SQL. */
const ID_PATTERN = /^[a-zA-Z0-9_]+$/;
/** Outcome codes: capitals and underscores. */
const OUTCOME_PATTERN = /^[A-Z_]+$/;

function equals(column: string, value: string | undefined): string[] {
  if (!value) return [];
  if (!ID_PATTERN.test(value)) throw new Error(`Not a valid id: ${value}`);
  return [`${column} = '${value}'`];
}

/** A text as an SQL string literal (standard_conforming_strings is on: only quotes are special). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The conditions of the filters, the time's lower bound first; columns qualified by `table` when given. */
function conditions(from: number, filters: VerificationFilters, table = ''): string[] {
  if (filters.outcome && !OUTCOME_PATTERN.test(filters.outcome)) throw new Error(`Not an outcome: ${filters.outcome}`);
  const column = (name: string) => (table ? `${table}.${name}` : name);
  return [
    `${column('time')} >= ${from}`,
    ...equals(column('api_id'), filters.apiId),
    ...equals(column('key_id'), filters.keyId),
    ...equals(column('identity_id'), filters.identityId),
    ...(filters.outcome ? [`${column('outcome')} = '${filters.outcome}'`] : []),
    ...(filters.tag ? [`${column('tags')} @> ARRAY[${literal(filters.tag)}]`] : []),
  ];
}

/**
 * Verifications and credits spent per bucket and outcome: from the rollup of the range, or with a
 * tag filter from the raw events, bucketed here.
 */
export function verificationsQuery(range: TimeRange, from: number, filters: VerificationFilters): string {
  const where = `WHERE ${conditions(from, filters).join(' AND ')}`;
  if (filters.tag) {
    const size = TIME_RANGES[range].bucketMs;
    return [
      `SELECT floor(time / ${size}) * ${size} AS time, outcome, COUNT(*) AS total, SUM(spent_credits) AS credits`,
      'FROM key_verifications_v1',
      where,
      'GROUP BY 1, 2 ORDER BY 1',
    ].join(' ');
  }
  return [
    'SELECT time, outcome, SUM(count) AS total, SUM(spent_credits) AS credits',
    `FROM key_verifications_per_${TIME_RANGES[range].granularity}_v1`,
    where,
    'GROUP BY time, outcome ORDER BY time',
  ].join(' ');
}

/** How many of each breakdown's leaders are asked for. */
export const BREAKDOWN_SIZE = 10;

/**
 * The leaders of the range, in one query: keys and identities (from the rollup, or the raw events
 * with a tag filter) and tags (raw events: rollups keep none), each the top by verifications and the
 * top by failures (every outcome but VALID). Rows: dimension (`key`, `identity`, `tag`), value (id
 * or tag), label (a key's API, an identity's external id), total, failed.
 */
export function breakdownQuery(range: TimeRange, from: number, filters: VerificationFilters): string {
  const where = conditions(from, filters).join(' AND ');
  const rollup = filters.tag ? 'key_verifications_v1' : `key_verifications_per_${TIME_RANGES[range].granularity}_v1`;
  const count = filters.tag ? '1' : 'count';
  const failed = `SUM(CASE WHEN outcome = 'VALID' THEN 0 ELSE ${count} END)`;
  const top = (dimension: string, value: string, label: string, table: string, extra: string, order: string) =>
    `(SELECT '${dimension}' AS dimension, ${value} AS value, ${label} AS label, SUM(${count}) AS total, ${failed} AS failed` +
    ` FROM ${table} WHERE ${where}${extra} GROUP BY ${value}${label === 'NULL' ? '' : `, ${label}`}` +
    ` ORDER BY ${order} DESC, ${value} LIMIT ${BREAKDOWN_SIZE})`;
  const tagWhere = conditions(from, filters, 'e').join(' AND ');
  const tags = (order: string) =>
    `(SELECT 'tag' AS dimension, t.tag AS value, NULL AS label, COUNT(*) AS total, SUM(CASE WHEN e.outcome = 'VALID' THEN 0 ELSE 1 END) AS failed` +
    ` FROM key_verifications_v1 AS e, unnest(e.tags) AS t(tag) WHERE ${tagWhere}` +
    ` GROUP BY t.tag ORDER BY ${order} DESC, t.tag LIMIT ${BREAKDOWN_SIZE})`;
  return [
    top('key', 'key_id', 'api_id', rollup, '', 'total'),
    top('key', 'key_id', 'api_id', rollup, '', 'failed'),
    top('identity', 'identity_id', 'external_id', rollup, ' AND identity_id IS NOT NULL', 'total'),
    top('identity', 'identity_id', 'external_id', rollup, ' AND identity_id IS NOT NULL', 'failed'),
    tags('total'),
    tags('failed'),
  ].join(' UNION ALL ');
}

/** A page of the verification log: where the previous page ended (its last row), newest first. */
export interface LogCursor {
  time: number;
  requestId: string;
}

/** Characters a log search may hold: those of ids, tags and external ids. Anything else is refused here. */
export const LOG_SEARCH_PATTERN = /^[a-zA-Z0-9_.=/:@-]*$/;

/**
 * One page of raw verifications, newest first, filtered, and searched (`search`: contained in the
 * request id, key id, external id or a tag, any case), starting after `before`.
 */
export function verificationLogQuery(
  from: number,
  filters: VerificationFilters,
  options: { search?: string; before?: LogCursor; limit: number },
): string {
  const where = conditions(from, filters);
  const { search, before, limit } = options;
  if (search) {
    if (!LOG_SEARCH_PATTERN.test(search)) throw new Error(`Not a log search: ${search}`);
    // ILIKE's own wildcards and escape are taken literally.
    const pattern = literal(`%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`);
    where.push(
      `(request_id ILIKE ${pattern} OR key_id ILIKE ${pattern} OR external_id ILIKE ${pattern} OR array_position(tags, ${literal(search)}) IS NOT NULL)`,
    );
  }
  if (before) {
    if (!ID_PATTERN.test(before.requestId)) throw new Error(`Not a request id: ${before.requestId}`);
    where.push(`(time < ${before.time} OR (time = ${before.time} AND request_id < '${before.requestId}'))`);
  }
  return [
    'SELECT time, request_id, api_id, key_id, identity_id, external_id, outcome, tags, spent_credits',
    'FROM key_verifications_v1',
    `WHERE ${where.join(' AND ')}`,
    `ORDER BY time DESC, request_id DESC LIMIT ${limit}`,
  ].join(' ');
}

/** A key's verifications since `from` by outcome (the minute rollup: the last hour, for its health). */
export function keyOutcomesQuery(from: number, apiId: string, keyId: string): string {
  return [
    'SELECT outcome, SUM(count) AS total',
    'FROM key_verifications_per_minute_v1',
    `WHERE time >= ${from} AND ${[...equals('api_id', apiId), ...equals('key_id', keyId)].join(' AND ')}`,
    'GROUP BY outcome',
  ].join(' ');
}

/** Verifications per key and day, of the keys listed (one page of a keys table) in one API. */
export function keysDailyUsageQuery(from: number, apiId: string, keyIds: readonly string[]): string {
  const ids = keyIds.map((keyId) => {
    if (!ID_PATTERN.test(keyId)) throw new Error(`Not a valid id: ${keyId}`);
    return `'${keyId}'`;
  });
  return [
    'SELECT key_id, time, SUM(count) AS total',
    'FROM key_verifications_per_day_v1',
    `WHERE time >= ${from} AND ${equals('api_id', apiId).join('')} AND key_id IN (${ids.join(', ')})`,
    'GROUP BY key_id, time',
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
