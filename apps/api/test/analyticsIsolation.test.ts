import { Worker } from 'node:worker_threads';
import { bootstrapWorkspace } from '@keyplane/core';
import {
  DEFAULT_ANALYTICS_CONNECTIONS,
  eventTransaction,
  type VerificationEvent,
  verificationTable,
  workspaceStore,
} from '@keyplane/db';
import { createTestDatabase, type TestDatabase, testVerificationEvent, writeEvents } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import type { AnalyticsLoadPlan } from './analyticsLoad.ts';
import { REDIS_URL } from './harness.ts';

// A real server process, as in production: analytics queries and verifications share its event
// loop and its database server, and must share nothing else.

/** Workspaces running analytics queries: two each (the default bound per workspace), twenty in all. */
const ANALYTICS_WORKSPACES = 10;
const QUERIES_PER_WORKSPACE = 2;
/** Events per analytics workspace: a cross join of 12 copies of 10 rows already never finishes in time. */
const EVENTS_PER_WORKSPACE = 10;
/**
 * The worst case on both sides: the longest query accepted (10,000 characters), which costs the
 * most to parse and check, and a cross join that keeps the database busy until the timeout.
 */
const WORST_CASE_QUERY = longestCrossJoin(10_000);

function longestCrossJoin(maxLength: number): string {
  let query = 'select count(*) from key_verifications_v1 t0';
  for (let i = 1; ; i++) {
    const next = `${query}, key_verifications_v1 t${i}`;
    if (next.length > maxLength) return query;
    query = next;
  }
}

/**
 * Keys verified in turn. A cached key, like the root key, is reloaded from the database once a
 * second, so every phase (MIN_PHASE_MS at least) reads PostgreSQL a few times: on a pool shared with
 * analytics each such verification would wait seconds, and every one after it too, as the cache
 * expires meanwhile. With two keys these reads stay under 1% of the samples, so the p99 measures
 * what every verification goes through rather than the database server's CPU, which analytics
 * share on a single machine (with many keys, a fifth of the verifications read the database and
 * the p99 follows its load).
 */
const KEYS = 2;
/**
 * Idle and loaded phases alternate, so that whatever else the machine runs meanwhile weighs on
 * both alike; the p99 of each phase is taken, and the median of the rounds compared, so that one
 * phase disturbed from outside does not decide.
 */
const ROUNDS = 5;
/**
 * Idle phases run before the rounds: the first seconds of a new server (code being optimised, the
 * analytics compiler's first query) made the first two idle phases three times slower than the rest.
 */
const WARM_UP_PHASES = 3;
/**
 * The least idle p99 the loaded one is compared with. On this two-core machine the database server
 * runs beside the node and the test's client, and the worst-case query keeps one core busy: below a
 * millisecond, a p99 measures how the kernel shares the other core (CI saw 0.5 ms idle, 1.3 ms
 * loaded), not whether verification waits behind analytics, which took seconds when it did.
 */
const IDLE_P99_FLOOR_MS = 1;
const SAMPLES_PER_PHASE = 1000;
/** Longer than a cached key lives (1 s), so that every phase reloads each key. */
const MIN_PHASE_MS = 1500;
/** A phase ends here even short of its samples: verifications waiting behind analytics take seconds each. */
const PHASE_LIMIT_MS = 10_000;

let database: TestDatabase;
let server: SpawnedServer;
let rootKey: string;
const keys: string[] = [];
const analyticsRootKeys: string[] = [];

async function post(procedure: string, body: unknown, key: string): Promise<{ status: number; data: unknown }> {
  const response = await fetch(`${server.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: unknown };
  return { status: response.status, data: parsed.data };
}

let nextKey = 0;

/** Sequential verifications over HTTP, going round the keys: each one's latency in ms. */
async function verifyKeyLatencies(): Promise<number[]> {
  const latencies: number[] = [];
  const phaseStarted = performance.now();
  const elapsed = () => performance.now() - phaseStarted;
  while (elapsed() < PHASE_LIMIT_MS && (latencies.length < SAMPLES_PER_PHASE || elapsed() < MIN_PHASE_MS)) {
    const key = keys[nextKey++ % keys.length];
    const started = performance.now();
    const reply = await post('keys.verifyKey', { key }, rootKey);
    latencies.push(performance.now() - started);
    expect(reply).toMatchObject({ status: 200, data: { valid: true } });
  }
  return latencies;
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function p99(latencies: number[]): number {
  const sorted = latencies.toSorted((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1] ?? Number.NaN;
}

/** A statement on the test's own connection to the test database. */
function execute<TRow>(statement: string): Promise<TRow[]> {
  return database.orm.em.fork().getConnection().execute<TRow[]>(statement);
}

/** The analytics cursors PostgreSQL is running for the server. */
const RUNNING_ANALYTICS = `from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
  and state = 'active' and query like '%analytics_result%'`;

/**
 * Keeps QUERIES_PER_WORKSPACE analytics queries in flight for each analytics workspace, from a
 * thread of its own; resolves once the database runs at least `runningAtOnce` of them. `stop`
 * cancels what still runs.
 */
async function startAnalyticsLoad(runningAtOnce: number) {
  const plan: AnalyticsLoadPlan = {
    url: server.url,
    rootKeys: analyticsRootKeys,
    queriesPerKey: QUERIES_PER_WORKSPACE,
    query: WORST_CASE_QUERY,
  };
  const load = new Worker(new URL('./analyticsLoad.ts', import.meta.url), { workerData: plan });
  let finished = false;
  const unexpected = new Promise<unknown[]>((resolve, reject) => {
    load.once('message', resolve);
    load.once('error', reject);
  }).finally(() => {
    finished = true;
  });
  const running = async () =>
    (await execute<{ n: number }>(`select count(*)::int as n ${RUNNING_ANALYTICS}`))[0]?.n ?? 0;
  while (!finished && (await running()) < runningAtOnce) await new Promise((resolve) => setTimeout(resolve, 10));
  if (finished) throw new Error(`the analytics load ended at once: ${JSON.stringify(await unexpected)}`);
  return {
    async stop() {
      load.postMessage('stop');
      while (!finished) {
        await execute(`select pg_cancel_backend(pid) ${RUNNING_ANALYTICS}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await unexpected).toEqual([]);
      await load.terminate();
    },
  };
}

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  server = await spawnServer({
    DATABASE_URL: database.url,
    ...(REDIS_URL ? { REDIS_URL } : {}),
  });
  if (!server.rootKey) throw new Error('the server did not bootstrap the database');
  rootKey = server.rootKey;
  const { apiId } = (await post('apis.createApi', { name: 'isolation' }, rootKey)).data as { apiId: string };
  const created = await Promise.all(Array.from({ length: KEYS }, () => post('keys.createKey', { apiId }, rootKey)));
  keys.push(...created.map(({ data }) => (data as { key: string }).key));
  const events: VerificationEvent[] = [];
  for (let w = 0; w < ANALYTICS_WORKSPACES; w++) {
    const workspace = await database.orm.em
      .fork()
      .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: `analytics-${w}` }));
    analyticsRootKeys.push(workspace.rootKey);
    for (let e = 0; e < EVENTS_PER_WORKSPACE; e++) {
      events.push(
        testVerificationEvent({
          requestId: `req_isolation_${w}_${e}`,
          workspaceId: workspace.workspaceId,
          apiId: 'api_isolation',
          keyId: `key_isolation_${w}`,
        }),
      );
    }
  }
  await eventTransaction(database.orm, (tx) => writeEvents(tx, verificationTable, events));
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

describe('analytics queries and verification on one node', () => {
  // Tried up to three times: a machine busy with something else for a few seconds moves a
  // sub-millisecond p99 either way, while the defect this guards against (verification queued behind
  // analytics) costs seconds in every try.
  const measured = { retry: 2, timeout: 180_000 };
  it(
    "keep verifyKey's p99 within twice its idle p99 (1 ms at least) while twenty worst-case queries run",
    measured,
    async () => {
      // Warm-up: connections opened, threads started, code paths compiled, every key cached once.
      for (let phase = 0; phase < WARM_UP_PHASES; phase++) await verifyKeyLatencies();
      await (await startAnalyticsLoad(DEFAULT_ANALYTICS_CONNECTIONS)).stop();
      const idle: number[] = [];
      const loaded: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        idle.push(p99(await verifyKeyLatencies()));
        const load = await startAnalyticsLoad(DEFAULT_ANALYTICS_CONNECTIONS);
        try {
          loaded.push(p99(await verifyKeyLatencies()));
        } finally {
          await load.stop();
        }
      }
      const rounds = (p99s: number[]) => p99s.map((value) => value.toFixed(2)).join(', ');
      expect(
        median(loaded),
        `verifyKey p99 of each round: idle ${rounds(idle)} ms; under analytics ${rounds(loaded)} ms`,
      ).toBeLessThanOrEqual(2 * Math.max(median(idle), IDLE_P99_FLOOR_MS));
    },
  );
});
