import {
  ANALYTICS_WAITING_QUERIES,
  analyticsConcurrencyExceeded,
  DEFAULT_ANALYTICS_CONCURRENT_QUERIES,
  DomainError,
  FairTurns,
} from '@keyplane/core';
import { databaseErrorCode, type PoolUsage, poolUsageOf, textArrayLiteral } from '@keyplane/db';
import { GRANULARITIES } from '@keyplane/events';
import pg from 'pg';
import { createAnalyticsCompiler } from './compiler.ts';
import { AnalyticsQueryError, positionAtByte } from './errors.ts';
import type { CompiledQuery as CompiledAnalyticsQuery, PublicTable } from './guard.ts';
import type { PublicColumn } from './valueBounds.ts';

export type AnalyticsDataset = 'verifications' | 'ratelimits';

/**
 * Where the public tables live: views that hold only the rows of the workspace (and APIs or
 * namespaces) named in the transaction's settings, behind a security barrier (migration
 * Migration20261128120000_analytics_views, docs/architecture.md#analytics).
 */
export const ANALYTICS_SCHEMA = 'keyplane_analytics';

/** The role analytics transactions run as: it may read the public views and nothing else. */
export const ANALYTICS_ROLE = 'keyplane_analytics';

/** A text column of at most `characters` characters (of up to 4 bytes each). */
const text = (name: string, characters: number): PublicColumn => ({ name, type: 'text', bytes: 4 * characters });
const bigint = (name: string): PublicColumn => ({ name, type: 'bigint' });
const double = (name: string): PublicColumn => ({ name, type: 'double' });
const boolean = (name: string): PublicColumn => ({ name, type: 'boolean' });
/** At most 20 tags of at most 512 characters (docs/contract.md, keys.verifyKey). */
const tags: PublicColumn = { name: 'tags', type: 'text', bytes: 20 * (4 * 512 + 8) + 16 };

/**
 * The public tables and their columns (docs/contract.md#analytics-tables), with the largest value each can
 * hold: the guard works out from them how large the values of a query can grow. `time` is unix
 * milliseconds everywhere, for raw events the event time and for rollups the bucket start (UTC).
 */
const VERIFICATION_TABLES: Record<string, PublicTable> = {
  key_verifications_v1: {
    columns: [
      bigint('time'),
      text('request_id', 64),
      text('workspace_id', 64),
      text('key_space_id', 64),
      text('api_id', 64),
      text('key_id', 64),
      text('identity_id', 64),
      text('external_id', 255),
      text('outcome', 32),
      tags,
      bigint('spent_credits'),
      double('latency'),
    ],
  },
  ...Object.fromEntries(
    GRANULARITIES.map((granularity) => [
      `key_verifications_per_${granularity}_v1`,
      {
        columns: [
          bigint('time'),
          text('workspace_id', 64),
          text('key_space_id', 64),
          text('api_id', 64),
          text('key_id', 64),
          text('identity_id', 64),
          text('external_id', 255),
          text('outcome', 32),
          bigint('count'),
          bigint('spent_credits'),
          double('latency_avg'),
        ],
      },
    ]),
  ),
};

const RATELIMIT_TABLES: Record<string, PublicTable> = {
  ratelimits_v1: {
    columns: [
      bigint('time'),
      text('request_id', 64),
      text('workspace_id', 64),
      text('namespace_id', 64),
      text('identifier', 512),
      boolean('passed'),
      bigint('limit'),
      bigint('remaining'),
      text('override_id', 64),
      double('latency'),
    ],
  },
  ...Object.fromEntries(
    GRANULARITIES.map((granularity) => [
      `ratelimits_per_${granularity}_v1`,
      {
        columns: [
          bigint('time'),
          text('workspace_id', 64),
          text('namespace_id', 64),
          text('identifier', 512),
          boolean('passed'),
          bigint('count'),
        ],
      },
    ]),
  ),
};

const TABLES: Record<AnalyticsDataset, Record<string, PublicTable>> = {
  verifications: VERIFICATION_TABLES,
  ratelimits: RATELIMIT_TABLES,
};

export interface AnalyticsLimits {
  maxRows: number;
  /** A query's run time, from the moment it has a connection (waiting for one is bounded apart). */
  timeoutMs: number;
  /** The reference answers 422 query_memory_limit_exceeded for results over 4 MiB. */
  maxResultBytes: number;
  /** Rows per FETCH at most: the result size is checked between fetches, so a huge result is never held whole. */
  fetchSize: number;
  /** The largest value (string, array, row) a query may build (see @keyplane/analytics valueBounds.ts). */
  maxValueBytes: number;
  /** The most significant digits a number of a query may have. */
  maxNumberDigits: number;
  /** What one row may cost at one level of a query: the bytes it builds and its numeric work. */
  maxRowWork: number;
  /** Memory for each sort or hash of a query, in kB (PostgreSQL's work_mem); past it, they spill to disk. */
  workMemKb: number;
  /** Temporary files a query may write, in kB (PostgreSQL's temp_file_limit), where the database lets it be set. */
  tempFileLimitKb: number;
}

export const ANALYTICS_LIMITS: AnalyticsLimits = {
  maxRows: 10_000,
  timeoutMs: 5_000,
  maxResultBytes: 4 * 1024 * 1024,
  fetchSize: 500,
  maxValueBytes: 1024 * 1024,
  maxNumberDigits: 1000,
  maxRowWork: 64 * 1024 * 1024,
  workMemKb: 4 * 1024,
  tempFileLimitKb: 1024 * 1024,
};

/**
 * Connections each process keeps for analytics queries, by default. A heavy query keeps one core
 * of the database server busy until its timeout: with one connection a node's analytics take one
 * core at most, and leave the others to verification even on a small server shared with the node.
 */
export const DEFAULT_ANALYTICS_CONNECTIONS = 1;

/** Past its deadline by this much, a query still running is cancelled (pg_cancel_backend). */
const CANCEL_AFTER_MS = 100;
/**
 * Past its deadline by this much, a query still running is given up: the caller is answered 422,
 * its connection closed and its backend terminated. A single function call PostgreSQL cannot
 * interrupt (the guard keeps them small) ends meanwhile; the connection's turn is given back only
 * once the backend has gone, so no more backends run than there are connections.
 */
const ABANDON_AFTER_MS = 1_000;

export interface AnalyticsQuery {
  dataset: AnalyticsDataset;
  workspaceId: string;
  /** The only APIs (verifications) or namespaces (ratelimits) whose rows may be seen; undefined: all of the workspace. */
  restrictTo?: readonly string[];
  /** The caller's SQL. */
  query: string;
  limits?: Partial<AnalyticsLimits>;
  /**
   * Days of analytics the service keeps: a query whose lower bound on `time` lies further back is
   * refused (400 query_range_exceeds_retention). Undefined: no such check.
   */
  retentionDays?: number;
  /** Runs once the query has been accepted, before it runs; may refuse it by throwing. */
  admit?: () => Promise<void>;
}

/** What the database lets analytics transactions do (see `setup`). */
export interface AnalyticsSetup {
  /** The transaction runs as ANALYTICS_ROLE; false: as the connecting user (the role is missing, or not granted to it). */
  role: boolean;
  /** temp_file_limit is set (it needs a superuser, or PostgreSQL 15's GRANT SET ON PARAMETER). */
  tempFileLimit: boolean;
}

export interface AnalyticsDatabase {
  /**
   * Runs a caller's analytics SELECT: checked and rewritten by @keyplane/analytics on its own
   * thread (throws AnalyticsQueryError), then executed in a read-only transaction as the analytics
   * role, over views that hold the workspace's rows only, with a statement timeout and a deadline,
   * through a cursor so the result's size is bounded while it is read. Values come back as JSON
   * (row_to_json), so bigint and numeric become numbers and timestamps ISO strings (UTC).
   */
  query(request: AnalyticsQuery): Promise<Record<string, unknown>[]>;
  /** What the database lets analytics transactions do; found out once, on first use. */
  setup(): Promise<AnalyticsSetup>;
  /** Closes the connections once the queries running on them have finished; queries not yet running fail. */
  close(): Promise<void>;
  /** Its connections, for the metrics. */
  poolUsage(): PoolUsage;
}

const DAY_MS = 86_400_000;

/**
 * The connections analytics queries run on, and nothing else does: a node's verifications and
 * management calls never wait behind a caller's SQL. Queries take turns on them fairly among
 * workspaces (FairTurns): a workspace sending query after query gets one turn in each round, so
 * another workspace's query waits for the queries already running at most; and a workspace runs
 * `queriesPerWorkspace` at once at most, its further queries waiting for one of them to end. A
 * query that gets no connection within its run time plus the grace of a deadline (ABANDON_AFTER_MS)
 * is refused before it is compiled, runs or counts against any quota: 429 query_concurrency_exceeded
 * when its workspace's own queries held its slots, analytics_busy when other workspaces' queries
 * held the connections. One that gets a connection has its whole run time.
 */
export function createAnalyticsDatabase(
  databaseUrl: string,
  options: { connections?: number; queriesPerWorkspace?: number; limits?: Partial<AnalyticsLimits> } = {},
): AnalyticsDatabase {
  const connections = options.connections ?? DEFAULT_ANALYTICS_CONNECTIONS;
  const queriesPerWorkspace = options.queriesPerWorkspace ?? DEFAULT_ANALYTICS_CONCURRENT_QUERIES;
  const configured = { ...ANALYTICS_LIMITS, ...options.limits };
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: connections,
    application_name: 'keyplane_analytics',
    connectionTimeoutMillis: configured.timeoutMs,
  });
  // Cancels and terminates the analytics backends that overrun their deadline; one connection.
  const control = new pg.Pool({
    connectionString: databaseUrl,
    max: 1,
    application_name: 'keyplane_analytics_control',
    connectionTimeoutMillis: configured.timeoutMs,
  });
  // An idle connection the server dropped must not take the process down; the next query reconnects.
  pool.on('error', () => {});
  control.on('error', () => {});
  const turns = new FairTurns(connections, {
    perTenant: queriesPerWorkspace,
    waitingPerTenant: ANALYTICS_WAITING_QUERIES,
  });
  const compiler = createAnalyticsCompiler();
  let knownSetup: Promise<AnalyticsSetup> | undefined;

  const setup = () => {
    knownSetup ??= probeSetup(pool).catch((error: unknown) => {
      knownSetup = undefined;
      throw error;
    });
    return knownSetup;
  };

  return {
    async query(request) {
      const limits = { ...configured, ...request.limits };
      const maxWaitMs = limits.timeoutMs + ABANDON_AFTER_MS;
      const turn = await turns.take(request.workspaceId, maxWaitMs);
      if (turn === 'busy') throw analyticsBusy(maxWaitMs);
      if (turn === 'tenant at its limit') throw analyticsConcurrencyExceeded(queriesPerWorkspace, maxWaitMs);
      if (turn === 'too many waiting') throw analyticsConcurrencyExceeded(queriesPerWorkspace, undefined);
      const giveTurn = () => turns.give(request.workspaceId);
      // Given back here, or by the reaper of a backend that overran its deadline.
      let turnHeld = true;
      try {
        const deadline = Date.now() + limits.timeoutMs;
        const allowed = await setup();
        // Compiled only once it has a connection to run on: a query refused as busy costs no CPU.
        const compiled = await compiler.compile(request.query, {
          tables: TABLES[request.dataset],
          schema: ANALYTICS_SCHEMA,
          maxRows: limits.maxRows,
          values: {
            maxValueBytes: limits.maxValueBytes,
            maxNumberDigits: limits.maxNumberDigits,
            maxRowWork: limits.maxRowWork,
          },
        });
        const client = await pool.connect();
        const pid = backendPid(client);
        const running = runQuery(client, compiled, request, limits, deadline, allowed);
        // The outcome of the run is read here or, once given up, dropped.
        running.catch(() => {});
        const cancelled = deadlineTimer(deadline + CANCEL_AFTER_MS, () => cancelBackend(control, pid));
        const givenUp = deadlineTimer(deadline + ABANDON_AFTER_MS, () => Promise.resolve());
        const outcome = await Promise.race([
          running.then(
            (rows) => ({ rows }),
            (error: unknown) => ({ error }),
          ),
          givenUp.fired.then(() => 'given up' as const),
        ]);
        await givenUp.clear();
        // A cancel sent must have arrived before the connection does anything else.
        await cancelled.clear();
        if (outcome === 'given up') {
          // Its backend is terminated below: what it says as it goes is no one's concern.
          client.on('error', () => {});
          client.release(new Error('the analytics query ran past its deadline'));
          turnHeld = false;
          void terminateBackend(control, pid).finally(giveTurn);
          throw timeoutError(limits.timeoutMs);
        }
        if ('rows' in outcome) {
          client.release();
          return outcome.rows;
        }
        const reusable = await client.query('rollback').then(
          () => true,
          () => false,
        );
        client.release(!reusable);
        if (isRoleError(outcome.error)) knownSetup = undefined;
        throw translateQueryError(outcome.error, limits.timeoutMs);
      } finally {
        if (turnHeld) giveTurn();
      }
    },
    setup,
    async close() {
      await pool.end();
      await control.end();
      await compiler.close();
    },
    // Queries wait for a turn rather than in the pool's own queue, which is never used.
    poolUsage: () => ({ ...poolUsageOf(pool), waiting: turns.waiting }),
  };
}

/**
 * Tries, in a transaction it rolls back, what each analytics transaction does: take the role, and
 * set temp_file_limit.
 */
async function probeSetup(pool: pg.Pool): Promise<AnalyticsSetup> {
  const client = await pool.connect();
  const attempt = async (statement: string): Promise<boolean> => {
    await client.query('begin');
    try {
      await client.query(statement);
      return true;
    } catch (error) {
      const code = databaseErrorCode(error);
      // Missing role, no membership, no right to set the parameter: the database's answer, not a failure.
      if (code === '42704' || code === '42501') return false;
      throw error;
    } finally {
      await client.query('rollback');
    }
  };
  try {
    return {
      tempFileLimit: await attempt(`select set_config('temp_file_limit', '1024', true)`),
      role: await attempt(`set local role ${ANALYTICS_ROLE}`),
    };
  } finally {
    client.release();
  }
}

/** The backend process serving a connection (pg reads it from the server as the connection opens). */
function backendPid(client: pg.PoolClient): number {
  const pid = (client as unknown as { processID?: unknown }).processID;
  if (typeof pid !== 'number') throw new Error('the analytics connection has no backend process id');
  return pid;
}

/** Runs `action` at `when` unless cleared first; `clear` waits for an action already started. */
function deadlineTimer(when: number, action: () => Promise<unknown>) {
  let started: Promise<unknown> | undefined;
  let fire: () => void = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  const timer = setTimeout(
    () => {
      started = action().catch(() => {});
      fire();
    },
    Math.max(0, when - Date.now()),
  );
  return {
    fired,
    async clear() {
      clearTimeout(timer);
      await started;
    },
  };
}

async function cancelBackend(control: pg.Pool, pid: number): Promise<void> {
  await control.query('select pg_cancel_backend($1)', [pid]);
}

/**
 * Terminates the backend of a query given up, and resolves once it has gone: PostgreSQL ends it at
 * its next check for interrupts, which a single long function call puts off.
 */
async function terminateBackend(control: pg.Pool, pid: number): Promise<void> {
  try {
    await control.query('select pg_terminate_backend($1)', [pid]);
    for (let waitMs = 50; ; waitMs = Math.min(waitMs * 2, 1000)) {
      const { rows } = await control.query('select 1 from pg_stat_activity where pid = $1', [pid]);
      if (rows.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  } catch {
    // The database cannot be asked: the turn goes back rather than being lost for good.
  }
}

/**
 * The transaction's settings (none needs a superuser but temp_file_limit): the workspace and the
 * APIs or namespaces the views show; a modest memory for each sort or hash, whatever the server's
 * default, so a query spills to disk sooner than it takes the database server's memory; no JIT
 * compilation, which PostgreSQL cannot interrupt and which can take seconds for a large query; UTC
 * and standard strings so that values print the same on any server; the views' schema as the
 * search path, so that messages name the public tables without a schema. (Parallel workers need
 * no setting: PostgreSQL never plans a cursor's query in parallel, so a query takes one core of
 * the database server at most.)
 */
function transactionSettings(
  request: AnalyticsQuery,
  limits: AnalyticsLimits,
  setup: AnalyticsSetup,
  timeoutMs: number,
): { sql: string; values: string[] } {
  const scope = request.restrictTo === undefined ? '*' : textArrayLiteral(request.restrictTo);
  const settings: Array<[string, string]> = [
    ['statement_timeout', String(timeoutMs)],
    ['work_mem', `${limits.workMemKb}kB`],
    ['jit', 'off'],
    ['TimeZone', 'UTC'],
    ['standard_conforming_strings', 'on'],
    ['search_path', ANALYTICS_SCHEMA],
    ['keyplane.analytics_workspace', request.workspaceId],
    // The other dataset's rows stay hidden: '{}' holds no API or namespace.
    ['keyplane.analytics_apis', request.dataset === 'verifications' ? scope : '{}'],
    ['keyplane.analytics_namespaces', request.dataset === 'ratelimits' ? scope : '{}'],
  ];
  if (setup.tempFileLimit) settings.push(['temp_file_limit', `${limits.tempFileLimitKb}kB`]);
  return {
    sql: `select ${settings.map((_, index) => `set_config($${2 * index + 1}, $${2 * index + 2}, true)`).join(', ')}`,
    values: settings.flat(),
  };
}

async function runQuery(
  client: pg.PoolClient,
  compiled: CompiledAnalyticsQuery,
  request: AnalyticsQuery,
  limits: AnalyticsLimits,
  deadline: number,
  setup: AnalyticsSetup,
): Promise<Record<string, unknown>[]> {
  // Each statement may take what is left of the run time, so the timeout bounds the whole query.
  const remaining = () => {
    const left = deadline - Date.now();
    if (left <= 0) throw timeoutError(limits.timeoutMs);
    return left;
  };
  await client.query('begin transaction read only');
  const settings = transactionSettings(request, limits, setup, remaining());
  await client.query(settings.sql, settings.values);
  if (setup.role) await client.query(`set local role ${ANALYTICS_ROLE}`);
  if (request.retentionDays !== undefined) {
    await refuseBoundsBeforeRetention(client, request.query, compiled.timeBounds, request.retentionDays);
  }
  // Only a query that will run counts against the quota.
  await request.admit?.();
  await client.query(
    `declare analytics_result no scroll cursor for select row_to_json(q)::text as r from (${compiled.sql}) as q`,
  );
  // As many rows per FETCH as can never exceed the result's limit together.
  const fetchSize = Math.max(1, Math.min(limits.fetchSize, Math.floor(limits.maxResultBytes / compiled.maxRowBytes)));
  const result: Record<string, unknown>[] = [];
  let bytes = 0;
  for (;;) {
    await client.query(`select set_config('statement_timeout', $1, true)`, [String(remaining())]);
    const fetched = await client.query<{ r: string }>(`fetch forward ${fetchSize} from analytics_result`);
    for (const { r } of fetched.rows) {
      bytes += Buffer.byteLength(r);
      if (bytes > limits.maxResultBytes) throw memoryLimitError(limits.maxResultBytes);
      const row = parseRow(r);
      // JSON.parse keeps it as a field, but no object the answer is built from could.
      if (Object.hasOwn(row, '__proto__')) throw prototypeColumnError();
      result.push(row);
    }
    if (fetched.rows.length < fetchSize) {
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

function timeoutError(timeoutMs: number): DomainError {
  return new DomainError(
    422,
    'user/unprocessable_entity/query_execution_timeout',
    `The query ran longer than ${seconds(timeoutMs)}. Narrow the time range, filter by key, or read a rollup table (…_per_hour_v1, …_per_day_v1).`,
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

/** Taking the analytics role failed: it was dropped or revoked since the setup was found out. */
function isRoleError(error: unknown): boolean {
  const code = databaseErrorCode(error);
  return (code === '42704' || code === '42501') && error instanceof Error && /role/.test(error.message);
}

/** The fence the guard wraps conditions in (guard.ts), named in PostgreSQL's message when a condition is not boolean. */
const FENCED_CONDITION = /^function pg_catalog\.booland_statefunc\((.+), boolean\) does not exist$/;

/** Schemas of the views, which PostgreSQL may name in a message: the caller knows the tables without them. */
const VIEW_SCHEMAS = /\bkeyplane_analytics(?:_scoped)?\./g;

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
    const message = firstLine(error.message);
    const fenced = FENCED_CONDITION.exec(message);
    const reason = fenced
      ? `a condition (WHERE, HAVING or JOIN … ON) must be of type boolean, not ${fenced[1]}`
      : message.replace(VIEW_SCHEMAS, '');
    return new AnalyticsQueryError('invalid_analytics_query', `The query failed: ${reason}.`);
  }
  return error;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/\.$/, '');
}
