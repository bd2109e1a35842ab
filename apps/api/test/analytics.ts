import { rows, sql } from '@keyplane/db';
import { expect } from 'vitest';
import { type Api, ERRORS_BASE_URL, type ErrorEnvelope, type TestWorkspace } from './harness.ts';

export type AnalyticsRow = Record<string, unknown>;

/** The rows an analytics procedure answers for a query, failing the test on anything but 200. */
export async function analyticsRows(
  api: Api,
  procedure: 'analytics.getVerifications' | 'analytics.getRatelimits',
  query: string,
  rootKey: string,
): Promise<AnalyticsRow[]> {
  const reply = await api.post<AnalyticsRow[]>(procedure, { query }, rootKey);
  if (reply.status !== 200) throw new Error(`${query}: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Runs `test` with the hourly analytics quota lowered to `queriesPerHour`, then restores it. */
export async function withAnalyticsQuota(api: Api, queriesPerHour: number, test: () => Promise<void>): Promise<void> {
  const configured = api.services.analyticsQueriesPerHour;
  api.services.analyticsQueriesPerHour = queriesPerHour;
  try {
    await test();
  } finally {
    api.services.analyticsQueriesPerHour = configured;
  }
}

/** A 12-way cross join of the workspace's events: over ten events it never finishes within the budget. */
export const ENDLESS_QUERY = `select count(*) from ${Array.from({ length: 12 }, (_, i) => `key_verifications_v1 t${i}`).join(', ')}`;

/** A verification event as the recorder takes it: a VALID one without identity or tags, but for `event`. */
export function verificationEvent(event: {
  time: number;
  requestId: string;
  workspaceId: string;
  apiId: string;
  keyId: string;
}) {
  return { identityId: null, externalId: null, outcome: 'VALID', tags: [], spentCredits: 0, latencyMs: 1, ...event };
}

/** A 400 for an analytics query, of the type `user/bad_request/<name>`, located at body.query. */
export function expectQueryRefused(reply: { status: number; body: { error: ErrorEnvelope } }, name: string): void {
  expect(reply.status).toBe(400);
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/user/bad_request/${name}`);
  expect(reply.body.error.errors?.[0]?.location).toBe('body.query');
}

/** A 403 whose detail names `missing`, to a root key of the workspace holding each of `grantSets` in turn. */
export async function expectRefusedWith(
  workspace: TestWorkspace,
  grantSets: string[][],
  missing: string,
  send: (rootKey: string) => Promise<{ status: number; body: { error: ErrorEnvelope } }>,
): Promise<void> {
  for (const grants of grantSets) {
    const reply = await send((await workspace.rootKeyWith(grants)).rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toContain(missing);
  }
}

/** A new workspace with ten verification events of its own, enough for ENDLESS_QUERY. */
export async function workspaceWithEvents(api: Api): Promise<TestWorkspace> {
  const created = await api.workspace();
  for (let i = 0; i < 10; i++) {
    api.services.verifications.record(
      verificationEvent({
        time: Date.now(),
        requestId: `req_${created.workspaceId}_${i}`,
        workspaceId: created.workspaceId,
        apiId: 'api_events',
        keyId: 'key_events',
      }),
    );
  }
  await api.services.verifications.flush();
  return created;
}

/** The analytics statements PostgreSQL is executing for this test file's database. */
const RUNNING_ANALYTICS = sql`from pg_stat_activity
  where datname = current_database() and application_name = 'keyplane_analytics' and state = 'active'
    and query like 'fetch %'`;

/** Resolves once PostgreSQL executes `count` analytics queries of this test file at once. */
export async function untilAnalyticsRunning(api: Api, count: number): Promise<void> {
  for (;;) {
    const [running] = await rows(api.em(), sql<{ n: number }>`select count(*)::int as n ${RUNNING_ANALYTICS}`);
    if (running?.n === count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Cancels the analytics queries PostgreSQL executes for this test file: each answers 422. */
export async function cancelAnalytics(api: Api): Promise<void> {
  await rows(api.em(), sql`select pg_cancel_backend(pid) ${RUNNING_ANALYTICS}`);
}

/**
 * A new workspace (workspaceWithEvents) at its bound of two analytics queries running at once
 * (ENDLESS_QUERY twice, on getVerifications: the bound is the workspace's, over both procedures):
 * a third, on `procedure`, still waits after `meanwhile` and 300 ms more, and answers once the two
 * are cancelled.
 */
export async function expectThirdQueryWaits(
  api: Api,
  procedure: 'analytics.getVerifications' | 'analytics.getRatelimits',
  meanwhile: () => Promise<void> = async () => {},
): Promise<void> {
  const busy = await workspaceWithEvents(api);
  const running = [0, 1].map(() => api.post('analytics.getVerifications', { query: ENDLESS_QUERY }, busy.rootKey));
  await untilAnalyticsRunning(api, 2);
  const third = api.post<AnalyticsRow[]>(procedure, { query: 'select 1 as one' }, busy.rootKey);
  await meanwhile();
  const waited = await Promise.race([third, new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
  expect(waited).toBe('waiting');
  await cancelAnalytics(api);
  await Promise.all(running);
  expect(await third).toMatchObject({ status: 200, body: { data: [{ one: 1 }] } });
}
