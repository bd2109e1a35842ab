import { deleteExpiredAnalytics, type RatelimitEvent } from '@keyplane/events';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsRow,
  analyticsRows,
  expectQueryRefused,
  expectRefusedWith,
  expectThirdQueryWaits,
  withAnalyticsQuota,
} from '../analytics.ts';
import { postOn } from '../appVariants.ts';
import { expectProblem } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { TEST_MASTER_KEY, type TestWorkspace, useApi } from '../harness.ts';

// Two analytics connections, so that a workspace's two queries at its bound both run.
const api = useApi({ vaultMasterKey: TEST_MASTER_KEY, analyticsConnections: 2 });

const workspace = useWorkspace(api);
let other: TestWorkspace;
// Events carry namespace ids as written; the namespaces themselves need not exist for analytics.
const NS_A = 'rlns_analytics_a';
const NS_B = 'rlns_analytics_b';
const NS_OTHER = 'rlns_analytics_other';
const NOW = Date.now();
const MULTI_LIMIT_CALL = 'req_analytics_multi_limit';

const getRatelimits = (query: string, rootKey = workspace.rootKey) =>
  api.post<AnalyticsRow[]>('analytics.getRatelimits', { query }, rootKey);

const rowsOf = (query: string, rootKey = workspace.rootKey) =>
  analyticsRows(api, 'analytics.getRatelimits', query, rootKey);

function decision(workspaceId: string, namespaceId: string, overrides: Partial<RatelimitEvent> = {}): RatelimitEvent {
  return {
    time: NOW,
    requestId: `req_${Math.random().toString(36).slice(2)}`,
    workspaceId,
    namespaceId,
    identifier: 'user_1',
    passed: true,
    limit: 10,
    remaining: 9,
    overrideId: null,
    latencyMs: 2,
    ...overrides,
  };
}

beforeAll(async () => {
  other = await api.workspace();
  const recorder = api.services.ratelimitEvents;
  // Namespace A: 3 passed + 1 rejected for user_1, in two flushes; namespace B: 2 passed for user_2,
  // one of them the further decision of a multiLimit call whose first is in namespace A.
  recorder.record(decision(workspace.workspaceId, NS_A));
  recorder.record(decision(workspace.workspaceId, NS_A, { passed: false, remaining: 0 }));
  await recorder.flush();
  recorder.record(
    decision(workspace.workspaceId, NS_A, {
      requestId: MULTI_LIMIT_CALL,
      further: [{ namespaceId: NS_B, identifier: 'user_2', limit: 20, remaining: 19, overrideId: null }],
    }),
  );
  recorder.record(decision(workspace.workspaceId, NS_A, { overrideId: 'rlor_1' }));
  recorder.record(decision(workspace.workspaceId, NS_B, { identifier: 'user_2' }));
  for (let i = 0; i < 3; i++) recorder.record(decision(other.workspaceId, NS_OTHER, { identifier: 'secret_user' }));
  await recorder.flush();
});

describe('200', () => {
  it('counts decisions per namespace and outcome from the raw events', async () => {
    expect(
      await rowsOf('select namespace_id, passed, count(*) as n from ratelimits_v1 group by 1, 2 order by 1, 2'),
    ).toEqual([
      { namespace_id: NS_A, passed: false, n: 1 },
      { namespace_id: NS_A, passed: true, n: 3 },
      { namespace_id: NS_B, passed: true, n: 2 },
    ]);
  });

  it('shows the documented columns of a raw event', async () => {
    const [event] = await rowsOf("select * from ratelimits_v1 where override_id = 'rlor_1'");
    expect(event).toEqual({
      time: NOW,
      request_id: expect.stringMatching(/^req_/),
      workspace_id: workspace.workspaceId,
      namespace_id: NS_A,
      identifier: 'user_1',
      passed: true,
      limit: 10,
      remaining: 9,
      override_id: 'rlor_1',
      latency: 2,
    });
  });

  it("shows each decision of a multiLimit call as a row of its own, with the call's request id", async () => {
    expect(
      await rowsOf(
        `select namespace_id, identifier, passed, "limit", remaining from ratelimits_v1
         where request_id = '${MULTI_LIMIT_CALL}' order by namespace_id`,
      ),
    ).toEqual([
      { namespace_id: NS_A, identifier: 'user_1', passed: true, limit: 10, remaining: 9 },
      { namespace_id: NS_B, identifier: 'user_2', passed: true, limit: 20, remaining: 19 },
    ]);
  });

  it.each(['minute', 'hour', 'day', 'month'])('the per-%s rollup adds up across flushes', async (granularity) => {
    expect(
      await rowsOf(
        `select namespace_id, identifier, passed, sum(count)::int as n from ratelimits_per_${granularity}_v1
         group by 1, 2, 3 order by 1, 2, 3`,
      ),
    ).toEqual([
      { namespace_id: NS_A, identifier: 'user_1', passed: false, n: 1 },
      { namespace_id: NS_A, identifier: 'user_1', passed: true, n: 3 },
      { namespace_id: NS_B, identifier: 'user_2', passed: true, n: 2 },
    ]);
  });
});

describe('400', () => {
  it.each([
    ['select * from key_verifications_v1', 'invalid_analytics_table'],
    ['select * from ratelimit_events', 'invalid_analytics_table'],
    ['select * from ratelimit_namespaces', 'invalid_analytics_table'],
    ["select pg_read_file('/etc/passwd')", 'invalid_analytics_function'],
    ['update ratelimits_v1 set passed = true', 'invalid_analytics_query_type'],
    ['select * from', 'invalid_analytics_query'],
  ])('%s → %s', async (query, name) => {
    expectQueryRefused(await getRatelimits(query), name);
  });

  it('a lower bound on time before the retention → query_range_exceeds_retention', async () => {
    const reply = await postOn(
      api,
      { analyticsRetentionDays: 7 },
      'analytics.getRatelimits',
      { query: 'select count(*) from ratelimits_per_hour_v1 where time >= 0' },
      workspace.rootKey,
    );
    expectProblem(reply, 400, 'user/bad_request/query_range_exceeds_retention');
    expect(reply.body.error.detail).toContain('the last 7 days');
  });
});

describe('403', () => {
  it('a root key without any ratelimit read_analytics grant, naming ratelimit.*.read_analytics', async () => {
    const grantSets = [['ratelimit.*.limit'], ['api.*.read_analytics']];
    await expectRefusedWith(workspace, grantSets, 'ratelimit.*.read_analytics', (key) =>
      getRatelimits('select 1', key),
    );
  });
});

describe('422', () => {
  it('a query that runs past the timeout', async () => {
    const from = Array.from({ length: 14 }, (_, i) => `ratelimits_v1 t${i}`).join(', ');
    expectProblem(
      await getRatelimits(`select count(*) from ${from}`),
      422,
      'user/unprocessable_entity/query_execution_timeout',
    );
  }, 20_000);
});

describe('429', () => {
  it("past the workspace's hourly quota", async () => {
    const limited = await api.workspace();
    await withAnalyticsQuota(api, 1, async () => {
      expect((await getRatelimits('select count(*) from ratelimits_v1', limited.rootKey)).status).toBe(200);
      expectProblem(
        await getRatelimits('select count(*) from ratelimits_v1', limited.rootKey),
        429,
        'user/too_many_requests/query_quota_exceeded',
      );
    });
  });

  it("past the workspace's bound on analytics queries running at once, shared with getVerifications, a query waits", async () => {
    await expectThirdQueryWaits(api, 'analytics.getRatelimits');
  });
});

describe('cross-workspace isolation', () => {
  it.each([
    'select * from ratelimits_v1',
    'select * from ratelimits_v1 where true or true',
    'select * from ratelimits_v1 union select * from ratelimits_v1',
    'with x as (select * from ratelimits_v1) select * from x',
    'select * from ratelimits_per_minute_v1 union all select * from ratelimits_per_month_v1',
    'select * from ratelimit_events',
    'select * from public.ratelimit_events_per_day',
    'select * from ratelimit_overrides',
    'with x as (delete from ratelimit_events returning *) select * from x',
  ])('%s', async (query) => {
    const reply = await getRatelimits(query);
    expect([200, 400]).toContain(reply.status);
    const text = JSON.stringify(reply.body);
    expect(text).not.toContain(other.workspaceId);
    expect(text).not.toContain('secret_user');
    expect(text).not.toContain(NS_OTHER);
  });

  it('a root key limited to one namespace sees only its rows', async () => {
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${NS_B}.read_analytics`]);
    // One of them the further decision of a call whose first decision it may not see.
    expect(await rowsOf('select namespace_id, count(*) as n from ratelimits_v1 group by 1', rootKey)).toEqual([
      { namespace_id: NS_B, n: 2 },
    ]);
    expect(
      await rowsOf(
        `select distinct namespace_id from ratelimits_per_day_v1 where namespace_id <> '${NS_B}' or true`,
        rootKey,
      ),
    ).toEqual([{ namespace_id: NS_B }]);
    const foreign = await workspace.rootKeyWith([`ratelimit.${NS_OTHER}.read_analytics`]);
    expect(await rowsOf('select count(*) as n from ratelimits_v1', foreign.rootKey)).toEqual([{ n: 0 }]);
  });
});

describe('retention', () => {
  it('deletes old decisions and their finished rollup buckets, keeping recent ones', async () => {
    const old = NOW - 200 * 86_400_000;
    api.services.ratelimitEvents.record(decision(workspace.workspaceId, 'rlns_old', { time: old }));
    api.services.ratelimitEvents.record(decision(workspace.workspaceId, 'rlns_old', { time: old + 1 }));
    await api.services.ratelimitEvents.flush();
    expect(await rowsOf("select count(*) as n from ratelimits_v1 where namespace_id = 'rlns_old'")).toEqual([{ n: 2 }]);

    const result = await deleteExpiredAnalytics(api.orm, { before: new Date(NOW - 90 * 86_400_000), batchSize: 1 });

    expect(result.deleted.ratelimit_events).toBe(2);
    expect(result.deleted.ratelimit_events_per_month).toBe(1);
    expect(await rowsOf("select count(*) as n from ratelimits_v1 where namespace_id = 'rlns_old'")).toEqual([{ n: 0 }]);
    expect(await rowsOf("select count(*) as n from ratelimits_per_day_v1 where namespace_id = 'rlns_old'")).toEqual([
      { n: 0 },
    ]);
    expect(await rowsOf('select count(*) as n from ratelimits_v1')).toEqual([{ n: 6 }]);
  });
});

describe('rollups', () => {
  it('add up the minutes of one flush into the coarser buckets', async () => {
    const hourStart = Math.floor(NOW / 3_600_000) * 3_600_000;
    const namespaceId = 'rlns_two_minutes';
    for (const time of [hourStart + 1000, hourStart + 2000, hourStart + 61_000]) {
      api.services.ratelimitEvents.record(decision(workspace.workspaceId, namespaceId, { time }));
    }
    await api.services.ratelimitEvents.flush();

    const counts = (granularity: string) =>
      rowsOf(
        `select time, count from ratelimits_per_${granularity}_v1 where namespace_id = '${namespaceId}' order by time`,
      );
    expect(await counts('minute')).toEqual([
      { time: hourStart, count: 2 },
      { time: hourStart + 60_000, count: 1 },
    ]);
    expect(await counts('hour')).toEqual([{ time: hourStart, count: 3 }]);
    expect((await counts('day')).map(({ count }) => count)).toEqual([3]);
    expect((await counts('month')).map(({ count }) => count)).toEqual([3]);
  });
});
