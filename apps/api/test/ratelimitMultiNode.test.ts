import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { REDIS_URL } from './harness.ts';
import { LONG_WINDOW } from './ratelimit.ts';

// ratelimit.* on two real server processes sharing one PostgreSQL, and one Redis when the
// environment has one (CI does). Without Redis each process limits on its own, so the
// assertions say what holds then: each node stays within the limit by itself.
let database: TestDatabase;
let nodeA: SpawnedServer;
let nodeB: SpawnedServer;
let rootKey: string;

interface LimitData {
  limit: number;
  remaining: number;
  success: boolean;
  overrideId?: string;
}

async function call<T>(node: SpawnedServer, procedure: string, body: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${node.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: T };
  return { status: response.status, data: parsed.data };
}

/** `count` concurrent calls, alternating between the nodes; the successes per node. */
async function burst(count: number, procedure: string, body: unknown, succeeded: (data: never) => boolean) {
  const replies = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const node = index % 2 === 0 ? nodeA : nodeB;
      return { node, reply: await call<never>(node, procedure, body) };
    }),
  );
  expect(replies.map(({ reply }) => reply.status)).toEqual(Array(count).fill(200));
  const passedOn = (node: SpawnedServer) =>
    replies.filter((entry) => entry.node === node && succeeded(entry.reply.data)).length;
  return { a: passedOn(nodeA), b: passedOn(nodeB) };
}

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const env = { DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) };
  nodeA = await spawnServer(env);
  nodeB = await spawnServer(env);
  if (!nodeA.rootKey) throw new Error('the first node did not bootstrap the database');
  rootKey = nodeA.rootKey;
}, 60_000);

afterAll(async () => {
  await Promise.all([nodeA?.stop(), nodeB?.stop()]);
  await database?.drop();
});

describe('ratelimit.limit on two server processes', () => {
  it('allows exactly the limit across both (each node on its own without Redis), never a 500', async () => {
    // A namespace neither node has seen: both race to create it on first use.
    const body = { namespace: 'multi_node', identifier: 'user_1', limit: 50, duration: LONG_WINDOW };
    const passed = await burst(120, 'ratelimit.limit', body, (data: LimitData) => data.success);
    if (REDIS_URL) {
      expect(passed.a + passed.b).toBe(50);
    } else {
      expect(passed).toEqual({ a: 50, b: 50 });
    }
  });

  it('applies an override set through one node to the next request on the other', async () => {
    const body = { namespace: 'multi_node_override', identifier: 'vip', limit: 5, duration: LONG_WINDOW };
    expect((await call<LimitData>(nodeB, 'ratelimit.limit', body)).data.limit).toBe(5);
    const set = await call<{ overrideId: string }>(nodeA, 'ratelimit.setOverride', {
      namespace: 'multi_node_override',
      identifier: 'v*',
      limit: 500,
      duration: LONG_WINDOW,
    });
    expect(set.status).toBe(200);
    const after = await call<LimitData>(nodeB, 'ratelimit.limit', body);
    expect(after.data).toMatchObject({ limit: 500, overrideId: set.data.overrideId });
    expect(
      (await call(nodeA, 'ratelimit.deleteOverride', { namespace: 'multi_node_override', identifier: 'v*' })).status,
    ).toBe(200);
    expect((await call<LimitData>(nodeB, 'ratelimit.limit', body)).data.limit).toBe(5);
  });
});

describe('ratelimit.multiLimit on two server processes', () => {
  it('is all-or-nothing under concurrency: both counters are charged together, exactly', async () => {
    const first = { namespace: 'multi_node_a', identifier: 'user_1', limit: 30, duration: LONG_WINDOW };
    const second = { namespace: 'multi_node_b', identifier: 'user_1', limit: 40, duration: LONG_WINDOW, cost: 2 };
    const passed = await burst(80, 'ratelimit.multiLimit', [first, second], (data: { passed: boolean }) => data.passed);
    // The second allows 20 calls (cost 2 of 40), the first 30: the call passes only while both do.
    if (REDIS_URL) {
      expect(passed.a + passed.b).toBe(20);
    } else {
      expect(passed).toEqual({ a: 20, b: 20 });
    }
    // Nothing was charged for the failed calls: the first counter holds exactly the passes.
    const check = await call<LimitData>(nodeA, 'ratelimit.limit', { ...first, cost: 0 });
    expect(check.data.remaining).toBe(30 - (REDIS_URL ? 20 : passed.a));
  });
});
