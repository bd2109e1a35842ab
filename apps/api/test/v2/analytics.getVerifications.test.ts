import { rows, sql } from '@keyplane/db';
import { deleteExpiredAnalytics, type VerificationEvent } from '@keyplane/events';
import { createQuotas } from '@keyplane/ratelimit';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  analyticsRows,
  cancelAnalytics,
  ENDLESS_QUERY,
  expectQueryRefused,
  expectRefusedWith,
  expectThirdQueryWaits,
  untilAnalyticsRunning,
  verificationEvent,
  withAnalyticsQuota,
  workspaceWithEvents,
} from '../analytics.ts';
import { callOn, postOn } from '../appVariants.ts';
import { expectProblem } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import {
  createTestApi,
  createTestKey,
  ERRORS_BASE_URL,
  TEST_MASTER_KEY,
  type TestWorkspace,
  useApi,
} from '../harness.ts';
import type { InputOf, OutputOf } from '../procedures.ts';
import { UNREACHABLE_REDIS } from '../ratelimit.ts';

// Three analytics connections: a workspace running its two queries at once leaves one for the others.
const api = useApi({ vaultMasterKey: TEST_MASTER_KEY, analyticsConnections: 3 });

const workspace = useWorkspace(api);
let other: TestWorkspace;
let apiA: string;
let apiB: string;
let keyA: string;
let keyB: string;
let otherKeyId: string;
let otherApiId: string;

const getVerifications = (query: string, rootKey = workspace.rootKey) =>
  api.call('analytics.getVerifications', { query }, rootKey);

async function verify(rootKey: string, body: InputOf<'keys.verifyKey'>) {
  const reply = await api.call('keys.verifyKey', body, rootKey);
  if (reply.status !== 200) throw new Error(`verifyKey: ${JSON.stringify(reply.body)}`);
  return reply.body.data.code;
}

const rowsOf = (query: string, rootKey = workspace.rootKey) =>
  analyticsRows(api, 'analytics.getVerifications', query, rootKey);

beforeAll(async () => {
  other = await api.workspace();
  apiA = await createTestApi(api, workspace.rootKey);
  apiB = await createTestApi(api, workspace.rootKey);
  otherApiId = await createTestApi(api, other.rootKey);
  const a = await createTestKey(api, workspace.rootKey, { apiId: apiA, credits: { remaining: 2 } });
  const b = await createTestKey(api, workspace.rootKey, { apiId: apiB });
  const o = await createTestKey(api, other.rootKey, { apiId: otherApiId });
  keyA = a.keyId;
  keyB = b.keyId;
  otherKeyId = o.keyId;
  // keyA: 2 VALID (spending its 2 credits), then 1 USAGE_EXCEEDED; keyB: 2 VALID; the other workspace: 4 VALID.
  await verify(workspace.rootKey, { key: a.key, tags: ['path=/a', 'region=eu'] });
  await verify(workspace.rootKey, { key: a.key });
  await verify(workspace.rootKey, { key: a.key });
  await verify(workspace.rootKey, { key: b.key });
  await verify(workspace.rootKey, { key: b.key });
  for (let i = 0; i < 4; i++) await verify(other.rootKey, { key: o.key });
  await api.services.verifications.flush();
});

describe('200', () => {
  it('counts verifications per outcome for one key from the raw events', async () => {
    const data = await rowsOf(
      `select outcome, count(*) as count from key_verifications_v1 where key_id = '${keyA}' group by outcome order by outcome`,
    );
    expect(data).toEqual([
      { outcome: 'USAGE_EXCEEDED', count: 1 },
      { outcome: 'VALID', count: 2 },
    ]);
  });

  it('shows the documented columns of a raw event', async () => {
    const before = Date.now();
    const [event] = await rowsOf(
      `select * from key_verifications_v1 where key_id = '${keyA}' and 'path=/a' = any(tags)`,
    );
    expect(event).toEqual({
      time: expect.any(Number),
      request_id: expect.stringMatching(/^req_/),
      workspace_id: workspace.workspaceId,
      key_space_id: apiA,
      api_id: apiA,
      key_id: keyA,
      identity_id: null,
      external_id: null,
      outcome: 'VALID',
      tags: ['path=/a', 'region=eu'],
      spent_credits: 1,
      latency: expect.any(Number),
    });
    expect(Number(event?.time)).toBeGreaterThan(before - 60_000);
    expect(Number(event?.time)).toBeLessThanOrEqual(before);
  });

  it('answers per-day counts by outcome from the rollup, equal to the raw counts', async () => {
    const perDay = await rowsOf(
      `select time, outcome, sum(count)::int8 as count, sum(spent_credits) as spent from key_verifications_per_day_v1
       where key_id = '${keyA}' group by time, outcome order by outcome`,
    );
    const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    expect(perDay).toEqual([
      { time: today, outcome: 'USAGE_EXCEEDED', count: 1, spent: 0 },
      { time: today, outcome: 'VALID', count: 2, spent: 2 },
    ]);
  });

  it('turns bigint and numeric into numbers and timestamps into UTC strings', async () => {
    const [row] = await rowsOf(
      `select count(*) as n, avg(spent_credits) as avg, sum(spent_credits) as total, to_timestamp(0) as epoch,
              round(1.25::numeric, 1) as rounded, 9007199254740993::int8 as huge from key_verifications_v1`,
    );
    expect(row).toEqual({
      n: 5,
      avg: 0.4,
      total: 2,
      epoch: '1970-01-01T00:00:00+00:00',
      rounded: 1.3,
      huge: '9007199254740993',
    });
  });

  it('clamps the result to 10,000 rows', async () => {
    const data = await rowsOf(
      'select 1 as one from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, ' +
        'key_verifications_v1 d, key_verifications_v1 e, key_verifications_v1 f limit 50000',
    );
    expect(data).toHaveLength(10_000);
  });

  it('keeps the caller ORDER BY and LIMIT', async () => {
    const data = await rowsOf(
      'select key_id, count(*)::int as n from key_verifications_v1 group by key_id order by n desc limit 1',
    );
    expect(data).toEqual([{ key_id: keyA, n: 3 }]);
  });

  it('answers an empty list when nothing matches, and accepts unknown body fields', async () => {
    const reply = await api.post<OutputOf<'analytics.getVerifications'>>(
      'analytics.getVerifications',
      { query: "select * from key_verifications_v1 where key_id = 'nope'", extra: true },
      workspace.rootKey,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
  });

  it('accepts CTEs, unions and joins of the public tables', async () => {
    const data = await rowsOf(
      `with per_key as (select key_id, count(*) as n from key_verifications_v1 group by key_id)
       select p.key_id, p.n, d.count as day_count from per_key p
       join (select key_id, sum(count) as count from key_verifications_per_day_v1 group by key_id) d using (key_id)
       union all select 'total', count(*), 0 from key_verifications_v1 order by 1`,
    );
    expect(data).toEqual(
      [
        { key_id: keyA, n: 3, day_count: 3 },
        { key_id: keyB, n: 2, day_count: 2 },
        { key_id: 'total', n: 5, day_count: 0 },
      ].sort((x, y) => x.key_id.localeCompare(y.key_id)),
    );
  });
});

describe('200 within the retention', () => {
  it.each([
    "select count(*) as n from key_verifications_v1 where time >= (extract(epoch from now() - interval '29 days') * 1000)::int8",
    'select count(*) as n from key_verifications_v1',
    'select count(*) as n from key_verifications_v1 where time > 0 or outcome is not null',
    'select count(*) as n from key_verifications_v1 where time < 4102444800000',
  ])('a query bounded inside the retention, or not bounded below: %s', async (query) => {
    const reply = await callOn(
      api,
      { analyticsRetentionDays: 30 },
      'analytics.getVerifications',
      { query },
      workspace.rootKey,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([{ n: 5 }]);
  });
});

describe('400', () => {
  it.each([
    ['select * from keys', 'invalid_analytics_table'],
    ['select * from ratelimits_v1', 'invalid_analytics_table'],
    ['select * from public.key_verifications', 'invalid_analytics_table'],
    ['select pg_sleep(1)', 'invalid_analytics_function'],
    ['select 1; drop table keys', 'invalid_analytics_query_type'],
    ['delete from key_verifications_v1', 'invalid_analytics_query_type'],
    ['select from from', 'invalid_analytics_query'],
    ['select 1 / 0', 'invalid_analytics_query'],
    ['select no_such_column from key_verifications_v1', 'invalid_analytics_query'],
  ])('%s → %s', async (query, name) => {
    const reply = await getVerifications(query);
    expectQueryRefused(reply, name);
    expect(reply.body.error.detail).not.toMatch(/key_verifications where|\$1/);
  });

  it('says where in the query the problem is', async () => {
    const reply = await getVerifications('select count(*)\nfrom root_keys');
    expect(reply.body.error.detail).toContain('"root_keys"');
    expect(reply.body.error.detail).toContain('line 2, column 6');
    expect(reply.body.error.errors?.[0]?.message).toContain('line 2, column 6');
  });

  it('passes on what PostgreSQL says about a query it cannot run', async () => {
    const reply = await getVerifications('select 1 / 0');
    expect(reply.body.error.detail).toContain('division by zero');
  });

  it.each([
    [
      "select count(*) from key_verifications_v1\nwhere time >= (extract(epoch from now() - interval '31 days') * 1000)::int8",
      2,
      12,
    ],
    ['select * from key_verifications_v1 where key_id is not null and time between 0 and 1000', 1, 70],
    ['select sum(count) from key_verifications_per_day_v1 where 0 < time', 1, 61],
  ])('a lower bound on time before the retention: %s', async (query, line, column) => {
    const reply = await postOn(
      api,
      { analyticsRetentionDays: 30 },
      'analytics.getVerifications',
      { query },
      workspace.rootKey,
    );
    expectProblem(reply, 400, 'user/bad_request/query_range_exceeds_retention');
    expect(reply.body.error.detail).toContain('the last 30 days');
    expect(reply.body.error.detail).toContain(`line ${line}, column ${column}`);
    expect(reply.body.error.errors?.[0]?.location).toBe('body.query');
  });

  it.each([{}, { query: '' }, { query: 42 }, { query: 'x'.repeat(10_001) }])('a body of %j', async (body) => {
    const reply = await api.post('analytics.getVerifications', body, workspace.rootKey);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors?.[0]?.location).toBe('body.query');
  });
});

describe('403', () => {
  it('a root key without any read_analytics grant for APIs, naming api.*.read_analytics', async () => {
    const grantSets = [['api.*.read_key'], ['ratelimit.*.read_analytics']];
    await expectRefusedWith(workspace, grantSets, 'api.*.read_analytics', (key) => getVerifications('select 1', key));
  });

  it('accepts api.*.read_analytics in either spelling', async () => {
    for (const permission of ['api.*.read_analytics', 'apis.*.read_analytics']) {
      const { rootKey } = await workspace.rootKeyWith([permission]);
      expect(await rowsOf('select count(*) as n from key_verifications_v1', rootKey)).toEqual([{ n: 5 }]);
    }
  });
});

describe('422', () => {
  it('a query that runs past the timeout', async () => {
    // The workspace's few events joined 13 times over: billions of rows, whatever plan PostgreSQL picks.
    const started = Date.now();
    expectProblem(
      await getVerifications(
        'select count(*) from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, ' +
          'key_verifications_v1 d, key_verifications_v1 e, key_verifications_v1 f, key_verifications_v1 g, ' +
          'key_verifications_v1 h, key_verifications_v1 i, key_verifications_v1 j, key_verifications_v1 k, ' +
          'key_verifications_v1 l, key_verifications_v1 m',
      ),
      422,
      'user/unprocessable_entity/query_execution_timeout',
    );
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 20_000);

  it('a result larger than 4 MiB', async () => {
    const wide = `'${'x'.repeat(1000)}'`;
    expectProblem(
      await getVerifications(
        `select concat(${wide}, a.request_id), ${wide} as b from key_verifications_v1 a, key_verifications_v1 b, ` +
          'key_verifications_v1 c, key_verifications_v1 d, key_verifications_v1 e, key_verifications_v1 f',
      ),
      422,
      'user/unprocessable_entity/query_memory_limit_exceeded',
    );
  });
});

describe('429', () => {
  const QUOTA_TYPE = `${ERRORS_BASE_URL}/user/too_many_requests/query_quota_exceeded`;
  const CONCURRENCY_TYPE = `${ERRORS_BASE_URL}/user/too_many_requests/query_concurrency_exceeded`;
  const BUSY_TYPE = `${ERRORS_BASE_URL}/user/too_many_requests/analytics_busy`;

  it("past the workspace's bound on queries running at once, when none makes way within the wait, not counting the refused ones", async () => {
    const busy = await workspaceWithEvents(api);
    await withAnalyticsQuota(api, 5, async () => {
      // Two run; two more wait and run as those run out of time; the last two wait past their bound.
      const sent = Array.from({ length: 6 }, () => getVerifications(ENDLESS_QUERY, busy.rootKey));
      const answers = await Promise.all(sent.slice(4));
      for (const refused of answers) {
        expect(refused.status).toBe(429);
        expect(refused.body.error.type).toBe(CONCURRENCY_TYPE);
        expect(refused.body.error.detail).toBe(
          'This workspace already has 2 analytics queries running, as many as it may run at once, and none of them made way for this one within 6 s. Retry when one has finished.',
        );
      }
      await untilAnalyticsRunning(api, 2);
      await cancelAnalytics(api);
      expect((await Promise.all(sent.slice(0, 4))).map((reply) => reply.status)).toEqual([422, 422, 422, 422]);
      // The four that ran spent four of the five queries; the two refused spent nothing.
      expect((await getVerifications('select 1', busy.rootKey)).status).toBe(200);
      expect((await getVerifications('select 1', busy.rootKey)).body.error.type).toBe(QUOTA_TYPE);
    });
  }, 30_000);

  it('when no analytics connection comes free within the run time and its grace, not counting it', async () => {
    const heavy = await Promise.all(Array.from({ length: 6 }, () => workspaceWithEvents(api)));
    const waiting = await api.workspace();
    await withAnalyticsQuota(api, 1, async () => {
      // Three run on the three connections; three more wait, and are served first when those time
      // out, as they waited longer: the last one waits past its bound.
      const running = heavy.slice(0, 3).map((busy) => getVerifications(ENDLESS_QUERY, busy.rootKey));
      await untilAnalyticsRunning(api, 3);
      const queued = heavy.slice(3).map((busy) => getVerifications(ENDLESS_QUERY, busy.rootKey));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await getVerifications('select 1', waiting.rootKey);
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe(BUSY_TYPE);
      expect(refused.body.error.detail).toBe(
        'Analytics is busy: no analytics connection came free in 6 s. Retry in a few seconds.',
      );
      // The first three ran out of time; the three queued behind them run now.
      expect((await Promise.all(running)).map((reply) => reply.status)).toEqual([422, 422, 422]);
      await untilAnalyticsRunning(api, 3);
      await cancelAnalytics(api);
      expect((await Promise.all(queued)).map((reply) => reply.status)).toEqual([422, 422, 422]);
      expect((await getVerifications('select 1', waiting.rootKey)).status).toBe(200);
      expect((await getVerifications('select 1', waiting.rootKey)).body.error.type).toBe(QUOTA_TYPE);
    });
  }, 30_000);

  it("past the workspace's hourly quota, shared with getRatelimits, and only that workspace's", async () => {
    const limited = await api.workspace();
    const bystander = await api.workspace();
    await withAnalyticsQuota(api, 2, async () => {
      expect((await getVerifications('select count(*) from key_verifications_v1', limited.rootKey)).status).toBe(200);
      const ratelimits = await api.post('analytics.getRatelimits', { query: 'select 1' }, limited.rootKey);
      expect(ratelimits.status).toBe(200);
      const refused = await getVerifications('select count(*) from key_verifications_v1', limited.rootKey);
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe(QUOTA_TYPE);
      expect(refused.body.error.detail).toContain('2 analytics queries of the past hour');
      expect((await getVerifications('select 1', bystander.rootKey)).status).toBe(200);
    });
  });

  it('counts in this process while Redis is unreachable, whatever RATELIMIT_REDIS_FAILURE says', async () => {
    const quotas = createQuotas({ redisUrl: UNREACHABLE_REDIS });
    onTestFinished(() => quotas.close());
    const analyticsQuota = quotas.quota('analytics-queries', 3600);
    const limited = await api.workspace();
    await withAnalyticsQuota(api, 2, async () => {
      const query = () =>
        postOn(api, { analyticsQuota }, 'analytics.getVerifications', { query: 'select 1' }, limited.rootKey);
      expect((await query()).status).toBe(200);
      expect((await query()).status).toBe(200);
      const refused = await query();
      expect(refused.status).toBe(429);
      expect(refused.body.error.type).toBe(QUOTA_TYPE);
    });
  });

  it('does not count queries that were refused', async () => {
    const limited = await api.workspace();
    await withAnalyticsQuota(api, 1, async () => {
      expect((await getVerifications('delete from key_verifications_v1', limited.rootKey)).status).toBe(400);
      expect((await getVerifications('select * from keys', limited.rootKey)).status).toBe(400);
      const beforeRetention = await postOn(
        api,
        { analyticsRetentionDays: 30 },
        'analytics.getVerifications',
        { query: 'select count(*) from key_verifications_v1 where time > 0' },
        limited.rootKey,
      );
      expect(beforeRetention.status).toBe(400);
      expect((await getVerifications('select 1', limited.rootKey)).status).toBe(200);
      expect((await getVerifications('select 1', limited.rootKey)).status).toBe(429);
    });
  });
});

describe('cross-workspace isolation', () => {
  const hostile = [
    'select * from key_verifications_v1',
    'select * from key_verifications_v1 where true or true',
    `select * from key_verifications_v1 where workspace_id = '$OTHER' or 1 = 1`,
    'select * from key_verifications_v1 union select * from key_verifications_v1',
    'select * from (select * from key_verifications_v1) s where s.workspace_id is not null',
    'with all_events as (select * from key_verifications_v1) select * from all_events',
    'select * from key_verifications_per_minute_v1',
    'select * from key_verifications_per_month_v1 union all select * from key_verifications_per_day_v1',
    'select k.*, (select count(*) from key_verifications_v1) from key_verifications_v1 k',
    'select * from keys',
    'select * from "keys"',
    'select * from root_keys',
    'select * from workspaces',
    'select * from key_verifications',
    'select * from public.key_verifications',
    'select * from key_verifications_per_day',
    'select * from pg_catalog.pg_class',
    'select * from information_schema.tables',
    'select 1 /* ; select * from keys */',
    'select 1; select * from key_verifications',
    'select 1; drop table keys',
    "select set_config('statement_timeout', '0', false)",
    "select pg_read_file('/etc/passwd')",
    "select nextval('x')",
    'select pg_terminate_backend(pg_backend_pid())',
    "select lo_import('/etc/passwd')",
    "select dblink('dbname=test', 'select 1')",
    'with x as (delete from keys returning *) select * from x',
    'with x as (delete from key_verifications returning *) select * from x',
    'select * from key_verifications_v1 for update',
    'select * into stolen from key_verifications_v1',
    'with keys as (select * from key_verifications_v1) select * from keys',
    'with a as (select * from key_verifications), key_verifications as (select 1) select * from a',
  ];

  it.each(hostile)('%s', async (template) => {
    const query = template.replace('$OTHER', other.workspaceId);
    const reply = await getVerifications(query);
    expect([200, 400]).toContain(reply.status);
    const text = JSON.stringify(reply.body);
    expect(text).not.toContain(other.workspaceId);
    expect(text).not.toContain(otherKeyId);
    expect(text).not.toContain(otherApiId);
    if (reply.status === 200) {
      for (const row of reply.body.data) {
        if ('workspace_id' in row) expect(row.workspace_id).toBe(workspace.workspaceId);
      }
    }
  });

  it('changed nothing: every key and event is still there', async () => {
    const [counts] = await rows(
      api.em(),
      sql<{ keys: number; events: number }>`
        select (select count(*)::int from keys) as keys, (select count(*)::int from key_verifications) as events`,
    );
    expect(counts?.keys).toBeGreaterThanOrEqual(3);
    expect(counts?.events).toBeGreaterThanOrEqual(9);
  });

  it("a workspace at its bound on queries running at once holds back no other workspace's", async () => {
    // Its third waits for one of its two, though a connection is free; another workspace's runs at once.
    await expectThirdQueryWaits(api, 'analytics.getVerifications', async () =>
      expect(await rowsOf('select count(*) as n from key_verifications_v1')).toEqual([{ n: 5 }]),
    );
  });

  it('the other workspace sees its own events only', async () => {
    expect(
      await rowsOf('select workspace_id, count(*) as n from key_verifications_v1 group by 1', other.rootKey),
    ).toEqual([{ workspace_id: other.workspaceId, n: 4 }]);
  });

  it('a root key limited to some APIs sees only their rows, in raw and rollup tables alike', async () => {
    const { rootKey } = await workspace.rootKeyWith([`api.${apiA}.read_analytics`]);
    expect(await rowsOf('select distinct api_id from key_verifications_v1', rootKey)).toEqual([{ api_id: apiA }]);
    expect(await rowsOf('select distinct api_id from key_verifications_per_hour_v1', rootKey)).toEqual([
      { api_id: apiA },
    ]);
    expect(
      await rowsOf(`select count(*) as n from key_verifications_v1 where api_id = '${apiB}' or true`, rootKey),
    ).toEqual([{ n: 3 }]);
    const both = await workspace.rootKeyWith([`api.${apiA}.read_analytics`, `api.${apiB}.read_analytics`]);
    expect(await rowsOf('select count(*) as n from key_verifications_v1', both.rootKey)).toEqual([{ n: 5 }]);
    // A grant naming another workspace's API shows nothing of it.
    const foreign = await workspace.rootKeyWith([`api.${otherApiId}.read_analytics`]);
    expect(await rowsOf('select count(*) as n from key_verifications_v1', foreign.rootKey)).toEqual([{ n: 0 }]);
  });
});

describe('rollups', () => {
  const minute = 60_000;
  const base = Date.UTC(2026, 0, 31, 23, 58, 0); // two minutes before a month boundary
  const event = (time: number, overrides: Partial<VerificationEvent> = {}): VerificationEvent => ({
    time,
    requestId: `req_${time}_${Math.random()}`,
    workspaceId: workspace.workspaceId,
    apiId: apiB,
    keyId: 'key_rollup',
    identityId: null,
    externalId: null,
    outcome: 'VALID',
    tags: [],
    spentCredits: 1,
    latencyMs: 10,
    ...overrides,
  });

  beforeAll(async () => {
    const recorder = api.services.verifications;
    // Three flushes; the first two land in the same minute and must add up.
    recorder.record(event(base + 1000));
    recorder.record(event(base + 2000, { outcome: 'RATE_LIMITED', spentCredits: 0 }));
    await recorder.flush();
    recorder.record(event(base + 3000, { latencyMs: 40 }));
    recorder.record(event(base + minute + 5000, { identityId: 'id_1', externalId: 'user_1' }));
    // Two minutes of one hour in one flush: the coarser rollups add up both minutes' totals.
    recorder.record(event(base + minute + 6000, { spentCredits: 2 }));
    await recorder.flush();
    recorder.record(event(base + 2 * minute + 1000)); // the next month
    recorder.record(event(base + 2 * minute + 2000, { spentCredits: 3 }));
    await recorder.flush();
  });

  it.each(['minute', 'hour', 'day', 'month'])('per %s equals the raw counts', async (granularity) => {
    const rollup = await rowsOf(
      `select time, outcome, identity_id, sum(count)::int as n, sum(spent_credits)::int as spent
       from key_verifications_per_${granularity}_v1 where key_id = 'key_rollup'
       group by 1, 2, 3 order by 1, 2, 3`,
    );
    const width = { minute, hour: 3_600_000, day: 86_400_000 }[granularity];
    const bucket =
      width === undefined
        ? "(extract(epoch from date_trunc('month', to_timestamp(time / 1000.0))) * 1000)::int8"
        : `(time / ${width}) * ${width}`;
    const raw = await rowsOf(
      `select ${bucket} as time, outcome, identity_id, count(*)::int as n, sum(spent_credits)::int as spent
       from key_verifications_v1 where key_id = 'key_rollup' group by 1, 2, 3 order by 1, 2, 3`,
    );
    expect(rollup).toEqual(raw);
    expect(rollup.reduce((sum, row) => sum + Number(row.n), 0)).toBe(7);
  });

  it('adds batches flushed into the same minute, including the average latency', async () => {
    expect(
      await rowsOf(
        `select outcome, count, spent_credits, latency_avg from key_verifications_per_minute_v1
         where key_id = 'key_rollup' and time = ${base} order by outcome`,
      ),
    ).toEqual([
      { outcome: 'RATE_LIMITED', count: 1, spent_credits: 0, latency_avg: 10 },
      { outcome: 'VALID', count: 2, spent_credits: 2, latency_avg: 25 },
    ]);
  });

  it('keeps identity and external id as dimensions, shown as NULL when absent', async () => {
    expect(
      await rowsOf(
        `select identity_id, external_id, sum(count)::int as n from key_verifications_per_month_v1
         where key_id = 'key_rollup' group by 1, 2 order by 1 nulls first`,
      ),
    ).toEqual([
      { identity_id: null, external_id: null, n: 6 },
      { identity_id: 'id_1', external_id: 'user_1', n: 1 },
    ]);
  });
});

describe('retention', () => {
  it('deletes raw events older than the cutoff in batches, and rollup buckets that ended before it', async () => {
    const day = 86_400_000;
    const now = Date.UTC(2026, 5, 15, 12);
    const old = now - 100 * day;
    const recorder = api.services.verifications;
    const base = { requestId: 'req_old', workspaceId: workspace.workspaceId, apiId: apiA, keyId: 'key_retention' };
    for (let i = 0; i < 5; i++) recorder.record(verificationEvent({ ...base, time: old + i * 1000 }));
    for (let i = 0; i < 2; i++) recorder.record(verificationEvent({ ...base, time: now - day + i * 1000 }));
    await recorder.flush();
    const count = (table: string) =>
      rowsOf(
        `select coalesce(sum(${table === 'key_verifications_v1' ? 1 : 'count'}), 0)::int as n from ${table} where key_id = 'key_retention'`,
      );
    expect(await count('key_verifications_v1')).toEqual([{ n: 7 }]);

    const result = await deleteExpiredAnalytics(api.orm, { before: new Date(now - 90 * day), batchSize: 2 });

    expect(result.deleted.key_verifications).toBeGreaterThanOrEqual(5);
    expect(await count('key_verifications_v1')).toEqual([{ n: 2 }]);
    expect(await count('key_verifications_per_minute_v1')).toEqual([{ n: 2 }]);
    expect(await count('key_verifications_per_day_v1')).toEqual([{ n: 2 }]);
    // The cutoff applies to every event in the database, this file's earlier ones included.
    const [oldest] = await rowsOf('select min(time) as t from key_verifications_v1');
    expect(Number(oldest?.t)).toBeGreaterThanOrEqual(now - 90 * day);
  });
});

describe('an event the database refuses', () => {
  it('is dropped alone: the events recorded with it are written, raw and rolled up', async () => {
    const event = (tags: string[]): VerificationEvent => ({
      time: Date.now(),
      requestId: `req_refused_${Math.random()}`,
      workspaceId: workspace.workspaceId,
      apiId: apiB,
      keyId: 'key_refused',
      identityId: null,
      externalId: null,
      outcome: 'VALID',
      tags,
      spentCredits: 0,
      latencyMs: 1,
    });
    const recorder = api.services.verifications;
    // The API refuses U+0000 in tags (400); an event holding it stands for any value PostgreSQL cannot store.
    for (const tags of [['first'], ['bad\u0000tag'], ['third'], ['fourth']]) recorder.record(event(tags));
    await recorder.flush();
    expect(
      await rowsOf(`select tags from key_verifications_v1 where key_id = 'key_refused' order by time, request_id`),
    ).toEqual(expect.arrayContaining([{ tags: ['first'] }, { tags: ['third'] }, { tags: ['fourth'] }]));
    expect(
      await rowsOf(`select sum(count)::int as n from key_verifications_per_day_v1 where key_id = 'key_refused'`),
    ).toEqual([{ n: 3 }]);
  });
});
