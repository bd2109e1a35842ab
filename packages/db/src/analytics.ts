import { AnalyticsQueryError, compileAnalyticsQuery, positionAtByte } from '@keyplane/analytics';
import { DomainError } from '@keyplane/core';
import { CompiledQuery, type QueryResult } from 'kysely';
import { GRANULARITIES, rollupTable } from './rollups.ts';
import { databaseErrorCode, type EntityManager, rows, sql } from './sql.ts';

export type AnalyticsDataset = 'verifications' | 'ratelimits';

/**
 * The public tables and the SELECT each stands for. `$1` is the caller's workspace and `$2` the
 * APIs (verifications) or namespaces (ratelimits) the root key is limited to, or NULL for all of
 * them. Every column is qualified, so nothing inside can bind to the caller's query around it.
 *
 * Columns (documented in the README): `time` is unix milliseconds everywhere, for raw events the
 * event time and for rollups the bucket start (UTC). Rollups show an absent identity or external
 * id as NULL, like the raw tables, and `latency_avg` in milliseconds.
 */
const VERIFICATION_TABLES: Record<string, string> = {
  key_verifications_v1: `
    select floor(extract(epoch from e.time) * 1000)::int8 as time, e.request_id, e.workspace_id,
           e.api_id as key_space_id, e.api_id, e.key_id, e.identity_id, e.external_id, e.outcome, e.tags,
           e.spent_credits, e.latency_ms as latency
    from key_verifications e
    where e.workspace_id = $1::text and ($2::text[] is null or e.api_id = any($2::text[]))`,
  ...Object.fromEntries(
    GRANULARITIES.map((granularity) => [
      `key_verifications_per_${granularity}_v1`,
      `select r.time, r.workspace_id, r.api_id as key_space_id, r.api_id, r.key_id,
              nullif(r.identity_id, '') as identity_id, nullif(r.external_id, '') as external_id, r.outcome,
              r.count, r.spent_credits, r.latency_sum / r.count as latency_avg
       from ${rollupTable('key_verifications', granularity)} r
       where r.workspace_id = $1::text and ($2::text[] is null or r.api_id = any($2::text[]))`,
    ]),
  ),
};

const RATELIMIT_TABLES: Record<string, string> = {
  ratelimits_v1: `
    select floor(extract(epoch from e.time) * 1000)::int8 as time, e.request_id, e.workspace_id, e.namespace_id,
           e.identifier, e.passed, e."limit", e.remaining, e.override_id, e.latency_ms as latency
    from ratelimit_events e
    where e.workspace_id = $1::text and ($2::text[] is null or e.namespace_id = any($2::text[]))`,
  ...Object.fromEntries(
    GRANULARITIES.map((granularity) => [
      `ratelimits_per_${granularity}_v1`,
      `select r.time, r.workspace_id, r.namespace_id, r.identifier, r.passed, r.count
       from ${rollupTable('ratelimit_events', granularity)} r
       where r.workspace_id = $1::text and ($2::text[] is null or r.namespace_id = any($2::text[]))`,
    ]),
  ),
};

const TABLES: Record<AnalyticsDataset, Record<string, string>> = {
  verifications: VERIFICATION_TABLES,
  ratelimits: RATELIMIT_TABLES,
};

export const ANALYTICS_LIMITS = {
  maxRows: 10_000,
  timeoutMs: 5_000,
  /** The reference answers 422 query_memory_limit_exceeded for results over 4 MiB. */
  maxResultBytes: 4 * 1024 * 1024,
  /** Rows per FETCH: the result size is checked between fetches, so a huge result is never held whole. */
  fetchSize: 500,
};

export interface AnalyticsQuery {
  dataset: AnalyticsDataset;
  workspaceId: string;
  /** The only APIs (verifications) or namespaces (ratelimits) whose rows may be seen; undefined: all of the workspace. */
  restrictTo?: readonly string[];
  /** The caller's SQL. */
  query: string;
  limits?: Partial<typeof ANALYTICS_LIMITS>;
  /**
   * Days of analytics the service keeps: a query whose lower bound on `time` lies further back is
   * refused (400 query_range_exceeds_retention). Undefined: no such check.
   */
  retentionDays?: number;
  /** Runs once the query has been accepted, before it runs; may refuse it by throwing. */
  admit?: () => Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * Runs a caller's analytics SELECT: checked and rewritten by @keyplane/analytics (throws
 * AnalyticsQueryError), then executed in a read-only transaction with a statement timeout,
 * through a cursor so the result's size is bounded while it is read. Values come back as JSON
 * (row_to_json), so bigint and numeric become numbers and timestamps ISO strings (UTC).
 */
export async function queryAnalytics(em: EntityManager, request: AnalyticsQuery): Promise<Record<string, unknown>[]> {
  const limits = { ...ANALYTICS_LIMITS, ...request.limits };
  const compiled = await compileAnalyticsQuery(request.query, {
    tables: TABLES[request.dataset],
    maxRows: limits.maxRows,
  });
  // A query that reads no table has no parameters; PostgreSQL refuses parameters it cannot type.
  const parameters = compiled.tables.length > 0 ? [request.workspaceId, request.restrictTo ?? null] : [];
  const started = Date.now();
  try {
    return await em.transactional(
      async (tx) => {
        await rows(
          tx,
          sql`select set_config('statement_timeout', ${String(limits.timeoutMs)}, true),
                     set_config('TimeZone', 'UTC', true),
                     set_config('standard_conforming_strings', 'on', true)`,
        );
        const kysely = tx.getKysely();
        if (request.retentionDays !== undefined) {
          await refuseBoundsBeforeRetention(kysely, request.query, compiled.timeBounds, request.retentionDays);
        }
        // Only a query that will run counts against the quota.
        await request.admit?.();
        await kysely.executeQuery(
          CompiledQuery.raw(
            `declare analytics_result no scroll cursor for select row_to_json(q)::text as r from (${compiled.sql}) as q`,
            parameters,
          ),
        );
        const result: Record<string, unknown>[] = [];
        let bytes = 0;
        for (;;) {
          // Each FETCH is a statement: the timeout left is what bounds the whole query.
          const remaining = limits.timeoutMs - (Date.now() - started);
          if (remaining <= 0) throw timeoutError(limits.timeoutMs);
          await rows(tx, sql`select set_config('statement_timeout', ${String(remaining)}, true)`);
          const fetched = await kysely.executeQuery<{ r: string }>(
            CompiledQuery.raw(`fetch forward ${limits.fetchSize} from analytics_result`, []),
          );
          for (const { r } of fetched.rows) {
            bytes += Buffer.byteLength(r);
            if (bytes > limits.maxResultBytes) throw memoryLimitError(limits.maxResultBytes);
            result.push(parseRow(r));
          }
          if (fetched.rows.length < limits.fetchSize) return result;
        }
      },
      { readOnly: true },
    );
  } catch (error) {
    throw translateQueryError(error, limits.timeoutMs);
  }
}

/**
 * Evaluates the lower bounds the query puts on `time` (constant expressions the guard accepted), all
 * in one statement, and refuses the query when one lies before the retention window, on the
 * database's clock.
 */
async function refuseBoundsBeforeRetention(
  kysely: { executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>> },
  query: string,
  bounds: { sql: string; location: number | undefined }[],
  retentionDays: number,
): Promise<void> {
  if (bounds.length === 0) return;
  const values = bounds.map((bound) => `(select to_jsonb(b.*) -> 'value' from (${bound.sql}) as b(value))`);
  const [evaluated] = (
    await kysely.executeQuery<{ values: unknown[]; retainedSince: number }>(
      CompiledQuery.raw(
        `select jsonb_build_array(${values.join(', ')}) as values,
                (extract(epoch from now()) * 1000)::float8 - ${retentionDays * DAY_MS} as "retainedSince"`,
        [],
      ),
    )
  ).rows;
  if (!evaluated) return;
  const { retainedSince } = evaluated;
  // A bound that is not a number is for PostgreSQL to refuse when the query runs.
  const index = evaluated.values.findIndex((value) => typeof value === 'number' && value < retainedSince);
  const bound = bounds[index];
  if (bound === undefined) return;
  throw new AnalyticsQueryError(
    'query_range_exceeds_retention',
    `The query asks for rows from ${describeTime(evaluated.values[index] as number)}, before what analytics keeps: the last ${retentionDays} days (since ${describeTime(retainedSince)}).`,
    bound.location === undefined ? undefined : positionAtByte(query, bound.location),
  );
}

/** Unix ms as an ISO time where a Date can hold it, else as the number. */
function describeTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms` : date.toISOString();
}

/** JSON numbers beyond 2^53 stay exact as strings rather than being rounded. */
function parseRow(text: string): Record<string, unknown> {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
      ? context?.source
      : value,
  );
}

function timeoutError(timeoutMs: number): DomainError {
  return new DomainError(
    422,
    'user/unprocessable_entity/query_execution_timeout',
    `The query ran longer than ${timeoutMs / 1000} s. Narrow the time range, filter by key, or read a rollup table (…_per_hour_v1, …_per_day_v1).`,
  );
}

function memoryLimitError(maxBytes: number): DomainError {
  return new DomainError(
    422,
    'user/unprocessable_entity/query_memory_limit_exceeded',
    `The result is larger than ${maxBytes / 1024 / 1024} MiB. Select fewer columns or rows, or aggregate.`,
  );
}

/**
 * PostgreSQL errors caused by the caller's query become 400s with PostgreSQL's message (which
 * names only public columns and values the caller wrote); timeouts and resource limits 422s;
 * anything else stays an internal error.
 */
function translateQueryError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof DomainError || error instanceof AnalyticsQueryError) return error;
  const code = databaseErrorCode(error);
  if (code === undefined) return error;
  if (code === '57014') return timeoutError(timeoutMs);
  if (code.startsWith('53') || code.startsWith('54')) {
    return new DomainError(
      422,
      'user/unprocessable_entity/query_memory_limit_exceeded',
      'The query needs more memory or temporary space than analytics queries may use. Aggregate or filter more.',
    );
  }
  if (/^(21|22|42|0A)/.test(code) && error instanceof Error) {
    return new AnalyticsQueryError('invalid_analytics_query', `The query failed: ${firstLine(error.message)}.`);
  }
  return error;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/\.$/, '');
}
