import { randomBytes } from 'node:crypto';
import { createOrm, migrate, pendingMigrations, rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { eventTransaction, verificationTable } from '@keyplane/events';
import { testVerificationEvent, writeEvents } from '@keyplane/events/testing';
import { adminQuery, databaseUrlFor } from '@keyplane/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANALYTICS_ROLE, type AnalyticsDatabase, createAnalyticsDatabase } from './database.ts';

const WORKSPACE = 'ws_analytics_db';

let database: TestDatabase;
let analytics: AnalyticsDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  // A server default generous enough that the sort below would stay in memory, on every new connection.
  const name = new URL(database.url).pathname.slice(1);
  await rows(database.orm.em.fork(), sql`alter database ${sql.id(name)} set work_mem = '256MB'`);
  analytics = createAnalyticsDatabase(database.url, { connections: 1 });
  const events = Array.from({ length: 12 }, (_, i) =>
    testVerificationEvent({
      requestId: `req_analytics_db_${i}`,
      workspaceId: WORKSPACE,
      apiId: 'api_analytics_db',
      keyId: 'key_analytics_db',
    }),
  );
  await eventTransaction(database.orm, (tx) => writeEvents(tx, verificationTable, events));
});

afterAll(async () => {
  await analytics.close();
  await database.drop();
});

/** Temporary files PostgreSQL has written for this database (sorts and hashes larger than work_mem). */
async function tempFiles(): Promise<number> {
  const [stats] = await rows(
    database.orm.em.fork(),
    sql<{ n: number }>`select temp_files::int as n from pg_stat_database where datname = current_database()`,
  );
  return stats?.n ?? 0;
}

describe('createAnalyticsDatabase', () => {
  it("gives a query 4 MB for each sort, whatever the server's default", async () => {
    const before = await tempFiles();
    // 12^5 ≈ 250,000 distinct values of about 100 bytes: some 25 MB to sort.
    const [sorted] = await analytics.query({
      dataset: 'verifications',
      workspaceId: WORKSPACE,
      query: `select count(distinct concat(a.request_id, b.request_id, c.request_id, d.request_id, e.request_id)) as n
              from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, key_verifications_v1 d,
                   key_verifications_v1 e`,
    });
    expect(sorted).toEqual({ n: 12 ** 5 });
    // A connection reports what it wrote at the end of a transaction a second or more after its last report.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await analytics.query({ dataset: 'verifications', workspaceId: WORKSPACE, query: 'select 1' });
    expect(await tempFiles()).toBeGreaterThan(before);
  });
});

/** A connection of the test's own to the test database, as the superuser the suite runs as. */
async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The error PostgreSQL answers `statement` with, as the analytics role; undefined when it succeeds. */
async function asAnalyticsRole(statement: string): Promise<string | undefined> {
  return withClient(database.url, async (client) => {
    await client.query('begin');
    try {
      await client.query(`set local role ${ANALYTICS_ROLE}`);
      await client.query(statement);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      await client.query('rollback');
    }
  });
}

describe('the analytics role', () => {
  it.each([
    'select count(*) from keyplane_analytics.key_verifications_v1',
    'select count(*) from keyplane_analytics.key_verifications_per_month_v1',
    'select count(*) from keyplane_analytics.ratelimits_v1',
    'select count(*) from keyplane_analytics.ratelimits_per_minute_v1',
  ])('may read the public view: %s', async (statement) => {
    expect(await asAnalyticsRole(statement)).toBeUndefined();
  });

  it.each([
    ['select count(*) from keys', /permission denied for table keys/],
    ['select count(*) from root_keys', /permission denied for table root_keys/],
    ['select count(*) from key_verifications', /permission denied for table key_verifications/],
    ['select count(*) from ratelimit_events_per_day', /permission denied for table ratelimit_events_per_day/],
    ['select count(*) from keyplane_analytics_scoped.key_verifications', /permission denied for schema/],
    ["select set_config('keyplane.analytics_workspace', 'x', false) from keys", /permission denied for table keys/],
  ])('may read nothing else: %s', async (statement, refusal) => {
    expect(await asAnalyticsRole(statement)).toMatch(refusal);
  });

  it('is the role analytics queries run as', async () => {
    expect(await analytics.setup()).toEqual({ role: true, tempFileLimit: true });
    const count = {
      dataset: 'verifications',
      workspaceId: WORKSPACE,
      query: 'select count(*) as n from key_verifications_v1',
    } as const;
    expect(await analytics.query(count)).toEqual([{ n: 12 }]);
    await rows(
      database.orm.em.fork(),
      sql`revoke select on keyplane_analytics.key_verifications_v1 from ${sql.id(ANALYTICS_ROLE)}`,
    );
    try {
      await expect(analytics.query(count)).rejects.toThrow('permission denied for view key_verifications_v1');
    } finally {
      await rows(
        database.orm.em.fork(),
        sql`grant select on keyplane_analytics.key_verifications_v1 to ${sql.id(ANALYTICS_ROLE)}`,
      );
    }
  });

  it('without the right to create or grant it, migrations go on and queries run as the connecting user', async () => {
    // A database owned by a user that may neither create roles nor grant the existing one.
    const owner = `kp_owner_${randomBytes(6).toString('hex')}`;
    const name = `kp_test_${randomBytes(6).toString('hex')}`;
    const serverUrl = inject('databaseUrl');
    await adminQuery(serverUrl, `create role "${owner}" login nosuperuser nocreaterole`);
    await adminQuery(serverUrl, `create database "${name}" owner "${owner}"`);
    const url = new URL(databaseUrlFor(serverUrl, name));
    url.username = owner;
    const orm = await createOrm(url.toString(), { poolSize: 1 });
    const ownAnalytics = createAnalyticsDatabase(url.toString());
    try {
      await migrate(orm);
      expect(await pendingMigrations(orm)).toEqual([]);
      expect(await ownAnalytics.setup()).toEqual({ role: false, tempFileLimit: false });
      await eventTransaction(orm, (tx) =>
        writeEvents(tx, verificationTable, [
          testVerificationEvent({ requestId: 'req_own_1', workspaceId: 'ws_own', apiId: 'api_own', keyId: 'key_own' }),
          testVerificationEvent({
            requestId: 'req_other_1',
            workspaceId: 'ws_other',
            apiId: 'api_own',
            keyId: 'key_own',
          }),
        ]),
      );
      expect(
        await ownAnalytics.query({
          dataset: 'verifications',
          workspaceId: 'ws_own',
          query: 'select workspace_id, count(*) as n from key_verifications_v1 group by 1',
        }),
      ).toEqual([{ workspace_id: 'ws_own', n: 1 }]);
    } finally {
      await ownAnalytics.close();
      await orm.close();
      await adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
      await adminQuery(serverUrl, `drop role if exists "${owner}"`);
    }
  }, 60_000);
});

describe('limits', () => {
  it('refuses a query that writes more temporary files than temp_file_limit allows', async () => {
    await expect(
      analytics.query({
        dataset: 'verifications',
        workspaceId: WORKSPACE,
        limits: { tempFileLimitKb: 1024 },
        query: `select count(distinct concat(a.request_id, b.request_id, c.request_id, d.request_id, e.request_id)) as n
                from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, key_verifications_v1 d,
                     key_verifications_v1 e`,
      }),
    ).rejects.toMatchObject({ status: 422, type: 'user/unprocessable_entity/query_memory_limit_exceeded' });
  });

  it('answers at the deadline when PostgreSQL cannot interrupt the query, and keeps its connection until the backend has gone', async () => {
    const timeoutMs = 500;
    // Allowed here only: multiplications of 60,000-digit numbers, which PostgreSQL runs to their end
    // whatever the statement timeout (tens of milliseconds each, seconds together).
    const products = Array.from({ length: 96 }, (_, i) => `x * x + ${i}`).join(', ');
    const uninterruptible = {
      dataset: 'verifications',
      workspaceId: WORKSPACE,
      limits: { timeoutMs, maxNumberDigits: 200_000, maxRowWork: 1e15 },
      query: `with a as (select '1e60000'::numeric / 7 as x) select greatest(${products}) > 0 as big from a`,
    } as const;
    const backends = async () =>
      (
        await rows(
          database.orm.em.fork(),
          sql<{ pid: number }>`select pid from pg_stat_activity
                               where datname = current_database() and application_name = 'keyplane_analytics'
                                 and state = 'active'`,
        )
      ).map(({ pid }) => pid);
    // The compiler's thread started: its first start takes a good part of a second.
    await analytics.query({ dataset: 'verifications', workspaceId: WORKSPACE, query: 'select 1' });
    const started = Date.now();
    const overrun = analytics.query(uninterruptible).then(
      () => undefined,
      (error: unknown) => error,
    );
    let running: number[] = [];
    while (running.length === 0) running = await backends();
    expect(await overrun).toMatchObject({ status: 422, type: 'user/unprocessable_entity/query_execution_timeout' });
    // The bound: the run time, the grace of a deadline, and the time to answer.
    expect(Date.now() - started).toBeLessThan(timeoutMs + 1_000 + 500);
    let goneAt = Number.POSITIVE_INFINITY;
    const watching = (async () => {
      while ((await backends()).some((pid) => running.includes(pid))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      goneAt = Date.now();
    })();
    // One connection: the next query runs once the given-up query has stopped, never beside it.
    const next = { dataset: 'verifications', workspaceId: WORKSPACE, query: 'select 1 as one' } as const;
    // Time enough to wait for the backend, however long its multiplications take on this machine.
    expect(await analytics.query({ ...next, limits: { timeoutMs: 60_000 } })).toEqual([{ one: 1 }]);
    const answeredAt = Date.now();
    await watching;
    expect(answeredAt).toBeGreaterThanOrEqual(goneAt);
  }, 90_000);
});

describe('turns', () => {
  it("count the queries waiting for one among the pool's waiting callers, for the metrics", async () => {
    const endless = {
      dataset: 'verifications',
      workspaceId: WORKSPACE,
      limits: { timeoutMs: 1_000 },
      query: `select count(*) from ${Array.from({ length: 12 }, (_, i) => `key_verifications_v1 t${i}`).join(', ')}`,
    } as const;
    const running = analytics.query(endless).catch((error: unknown) => error);
    const waiting = analytics.query(endless).catch((error: unknown) => error);
    while (analytics.poolUsage().waiting === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(analytics.poolUsage()).toMatchObject({ waiting: 1, max: 1 });
    expect(await running).toMatchObject({ type: 'user/unprocessable_entity/query_execution_timeout' });
    expect(await waiting).toMatchObject({ type: 'user/unprocessable_entity/query_execution_timeout' });
    expect(analytics.poolUsage().waiting).toBe(0);
  }, 30_000);
});
