import {
  AnalyticsQueryError,
  type CompiledQuery as CompiledAnalyticsQuery,
  createAnalyticsCompiler,
  positionAtByte,
} from '@keyplane/analytics';
import { DomainError } from '@keyplane/core';
import pg from 'pg';
import { type PoolUsage, poolUsageOf } from './poolUsage.ts';
import { RATELIMIT_DECISIONS } from './ratelimitEvents.ts';
import { GRANULARITIES, rollupTable } from './rollups.ts';
import { databaseErrorCode } from './sql.ts';

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
    from (${RATELIMIT_DECISIONS}) e
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
  /** The whole query's budget: waiting for a connection (half of it at most), checking the time range, running. */
  timeoutMs: 5_000,
  /** The reference answers 422 query_memory_limit_exceeded for results over 4 MiB. */
  maxResultBytes: 4 * 1024 * 1024,
  /** Rows per FETCH: the result size is checked between fetches, so a huge result is never held whole. */
  fetchSize: 500,
};

/**
 * Connections each process keeps for analytics queries, by default. A heavy query keeps one core
 * of the database server busy until its timeout: with one connection a node's analytics take one
 * core at most, and leave the others to verification even on a small server shared with the node.
 */
export const DEFAULT_ANALYTICS_CONNECTIONS = 1;

/**
 * Set in each analytics transaction (none needs a superuser): a modest memory for each sort or
 * hash, whatever the server's default, so a query spills to disk sooner than it takes the
 * database server's memory; UTC and standard strings so that values print the same on any server.
 * (Parallel workers need no setting: PostgreSQL never plans a cursor's query in parallel, so a
 * query takes one core of the database server at most.)
 */
const TRANSACTION_SETTINGS = `
  select set_config('statement_timeout', $1, true),
         set_config('work_mem', '4MB', true),
         set_config('TimeZone', 'UTC', true),
         set_config('standard_conforming_strings', 'on', true)`;

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

export interface AnalyticsDatabase {
  /**
   * Runs a caller's analytics SELECT: checked and rewritten by @keyplane/analytics on its own
   * thread (throws AnalyticsQueryError), then executed in a read-only transaction with a statement
   * timeout, through a cursor so the result's size is bounded while it is read. Values come back as
   * JSON (row_to_json), so bigint and numeric become numbers and timestamps ISO strings (UTC).
   */
  query(request: AnalyticsQuery): Promise<Record<string, unknown>[]>;
  /** Closes the connections once the queries running on them have finished; queries not yet running fail. */
  close(): Promise<void>;
  /** Its connections, for the metrics. */
  poolUsage(): PoolUsage;
}

const DAY_MS = 86_400_000;

/**
 * The connections analytics queries run on, and nothing else does: a node's verifications and
 * management calls never wait behind a caller's SQL. A query waits for a free connection in
 * arrival order, and the wait counts against its time budget, but it waits at most half of it:
 * one that gets no connection by then is refused, before it is compiled, runs or counts against
 * any quota, with 429 analytics_busy. So the queue never outgrows what the connections can serve,
 * and a query that runs has at least half its budget to do so (a 422 timeout means it is too
 * heavy, not that it queued).
 */
export function createAnalyticsDatabase(
  databaseUrl: string,
  options: { connections?: number } = {},
): AnalyticsDatabase {
  const connections = options.connections ?? DEFAULT_ANALYTICS_CONNECTIONS;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'keyplane_analytics',
    connectionTimeoutMillis: ANALYTICS_LIMITS.timeoutMs,
  });
  // An idle connection the server dropped must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  const turns = new Turns(connections);
  const compiler = createAnalyticsCompiler();

  return {
    async query(request) {
      const limits = { ...ANALYTICS_LIMITS, ...request.limits };
      const started = Date.now();
      const maxWaitMs = limits.timeoutMs / 2;
      if (!(await turns.take(maxWaitMs))) throw analyticsBusy(maxWaitMs);
      try {
        const budget = {
          timeoutMs: limits.timeoutMs,
          deadline: started + limits.timeoutMs,
          waitedMs: Date.now() - started,
        };
        // Compiled only once it has a connection to run on: a query refused as busy costs no CPU.
        const compiled = await compiler.compile(request.query, {
          tables: TABLES[request.dataset],
          maxRows: limits.maxRows,
        });
        const client = await pool.connect();
        let reusable = true;
        try {
          return await runQuery(client, compiled, request, limits, budget);
        } catch (error) {
          reusable = await client.query('rollback').then(
            () => true,
            () => false,
          );
          throw translateQueryError(error, budget);
        } finally {
          client.release(!reusable);
        }
      } finally {
        turns.give();
      }
    },
    async close() {
      await pool.end();
      await compiler.close();
    },
    poolUsage: () => poolUsageOf(pool),
  };
}

/**
 * At most `capacity` holders at once, served in arrival order; a caller that is not served within
 * its wait gives up. Holding a turn means a pool connection is free for the holder, so the pool's
 * own queue, which waits without a limit, is never used.
 */
class Turns {
  #free: number;
  readonly #waiting: { serve: () => void }[] = [];

  constructor(capacity: number) {
    this.#free = capacity;
  }

  /** Resolves true once the caller holds a turn (it must give it back), false after `waitMs` without one. */
  take(waitMs: number): Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter = {
        serve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        resolve(false);
      }, waitMs);
      this.#waiting.push(waiter);
    });
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next.serve();
    else this.#free++;
  }
}

/** A query's time: `timeoutMs` from when it asked for a connection, `waitedMs` of it spent getting one. */
interface Budget {
  timeoutMs: number;
  deadline: number;
  waitedMs: number;
}

async function runQuery(
  client: pg.PoolClient,
  compiled: CompiledAnalyticsQuery,
  request: AnalyticsQuery,
  limits: typeof ANALYTICS_LIMITS,
  budget: Budget,
): Promise<Record<string, unknown>[]> {
  // Each statement may take what is left of the budget, so the timeout bounds the whole query.
  const remaining = () => {
    const left = budget.deadline - Date.now();
    if (left <= 0) throw timeoutError(budget);
    return String(left);
  };
  await client.query('begin transaction read only');
  await client.query(TRANSACTION_SETTINGS, [remaining()]);
  if (request.retentionDays !== undefined) {
    await refuseBoundsBeforeRetention(client, request.query, compiled.timeBounds, request.retentionDays);
  }
  // Only a query that will run counts against the quota.
  await request.admit?.();
  // A query that reads no table has no parameters; PostgreSQL refuses parameters it cannot type.
  const parameters = compiled.tables.length > 0 ? [request.workspaceId, request.restrictTo ?? null] : [];
  await client.query(
    `declare analytics_result no scroll cursor for select row_to_json(q)::text as r from (${compiled.sql}) as q`,
    parameters,
  );
  const result: Record<string, unknown>[] = [];
  let bytes = 0;
  for (;;) {
    await client.query(`select set_config('statement_timeout', $1, true)`, [remaining()]);
    const fetched = await client.query<{ r: string }>(`fetch forward ${limits.fetchSize} from analytics_result`);
    for (const { r } of fetched.rows) {
      bytes += Buffer.byteLength(r);
      if (bytes > limits.maxResultBytes) throw memoryLimitError(limits.maxResultBytes);
      const row = parseRow(r);
      // JSON.parse keeps it as a field, but no object the answer is built from could.
      if (Object.hasOwn(row, '__proto__')) throw prototypeColumnError();
      result.push(row);
    }
    if (fetched.rows.length < limits.fetchSize) {
      await client.query('commit');
      return result;
    }
  }
}

/**
 * Evaluates the lower bounds the query puts on `time` (constant expressions the guard accepted), all
 * in one statement, and refuses the query when one lies before the retention window, on the
 * database's clock.
 */
async function refuseBoundsBeforeRetention(
  client: pg.PoolClient,
  query: string,
  bounds: { sql: string; location: number | undefined }[],
  retentionDays: number,
): Promise<void> {
  if (bounds.length === 0) return;
  const values = bounds.map((bound) => `(select to_jsonb(b.*) -> 'value' from (${bound.sql}) as b(value))`);
  const [evaluated] = (
    await client.query<{ values: unknown[]; retainedSince: number }>(
      `select jsonb_build_array(${values.join(', ')}) as values,
              (extract(epoch from now()) * 1000)::float8 - ${retentionDays * DAY_MS} as "retainedSince"`,
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

/**
 * JSON numbers beyond 2^53 stay exact as strings rather than being rounded. Such a number has at
 * least 16 digits; rows without a run of 16 digits skip the reviver, which costs four times the
 * parse itself (rows are parsed on the event loop that verifications need).
 */
function parseRow(text: string): Record<string, unknown> {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
      ? context?.source
      : value,
  );
}

function prototypeColumnError(): AnalyticsQueryError {
  return new AnalyticsQueryError(
    'invalid_analytics_query',
    'The query answers a column named __proto__, which no JSON answer can carry: name it otherwise (AS …).',
  );
}

function timeoutError(budget: Budget): DomainError {
  // Said when it was a noticeable part of the budget: the query itself had that much less time.
  const waited =
    budget.waitedMs >= 100 ? `, ${seconds(budget.waitedMs)} of it waiting for a free analytics connection` : '';
  return new DomainError(
    422,
    'user/unprocessable_entity/query_execution_timeout',
    `The query ran longer than ${seconds(budget.timeoutMs)}${waited}. Narrow the time range, filter by key, or read a rollup table (…_per_hour_v1, …_per_day_v1).`,
  );
}

function analyticsBusy(waitedMs: number): DomainError {
  return new DomainError(
    429,
    'user/too_many_requests/analytics_busy',
    `Analytics is busy: no analytics connection came free in ${seconds(waitedMs)}. Retry in a few seconds.`,
  );
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
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
function translateQueryError(error: unknown, budget: Budget): unknown {
  if (error instanceof DomainError || error instanceof AnalyticsQueryError) return error;
  const code = databaseErrorCode(error);
  if (code === undefined) return error;
  if (code === '57014') return timeoutError(budget);
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
