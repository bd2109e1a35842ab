import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace } from '@keyplane/core';
import { setWorkspaceApiRateLimit, workspaceStore } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import type { SpawnedServer } from '../../../bench/server.ts';
import { callAt, REDIS_URL, type ReplyOf } from './harness.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';
import { LONG_WINDOW } from './ratelimit.ts';
import { useTwoNodes } from './twoNodes.ts';

// ratelimit.* on two real server processes sharing one PostgreSQL, and one Redis when the
// environment has one (CI does). Without Redis each process limits on its own, so the
// assertions say what holds then: each node stays within the limit by itself.
const cluster = useTwoNodes();

/** `count` concurrent calls, alternating between the nodes; the successes per node. */
async function burst<P extends ProcedurePath>(
  count: number,
  procedure: P,
  input: InputOf<P>,
  succeeded: (data: ReplyOf<P>['body']['data']) => boolean,
) {
  const replies = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const node = index % 2 === 0 ? cluster.nodeA : cluster.nodeB;
      return { node, reply: await cluster.callProcedure(node, procedure, input) };
    }),
  );
  expect(replies.map(({ reply }) => reply.status)).toEqual(Array(count).fill(200));
  const passedOn = (node: SpawnedServer) =>
    replies.filter((entry) => entry.node === node && succeeded(entry.reply.body.data)).length;
  return { a: passedOn(cluster.nodeA), b: passedOn(cluster.nodeB) };
}

describe('ratelimit.limit on two server processes', () => {
  it('allows exactly the limit across both (each node on its own without Redis), never a 500', async () => {
    // A namespace neither node has seen: both race to create it on first use.
    const body = { namespace: 'multi_node', identifier: 'user_1', limit: 50, duration: LONG_WINDOW };
    const passed = await burst(120, 'ratelimit.limit', body, (data) => data.success);
    if (REDIS_URL) {
      expect(passed.a + passed.b).toBe(50);
    } else {
      expect(passed).toEqual({ a: 50, b: 50 });
    }
  });

  it('applies an override set through one node to the next request on the other', async () => {
    const body = { namespace: 'multi_node_override', identifier: 'vip', limit: 5, duration: LONG_WINDOW };
    expect((await cluster.callProcedure(cluster.nodeB, 'ratelimit.limit', body)).body.data.limit).toBe(5);
    const set = await cluster.callProcedure(cluster.nodeA, 'ratelimit.setOverride', {
      namespace: 'multi_node_override',
      identifier: 'v*',
      limit: 500,
      duration: LONG_WINDOW,
    });
    expect(set.status).toBe(200);
    const after = await cluster.callProcedure(cluster.nodeB, 'ratelimit.limit', body);
    expect(after.body.data).toMatchObject({ limit: 500, overrideId: set.body.data.overrideId });
    expect(
      (
        await cluster.callProcedure(cluster.nodeA, 'ratelimit.deleteOverride', {
          namespace: 'multi_node_override',
          identifier: 'v*',
        })
      ).status,
    ).toBe(200);
    expect((await cluster.callProcedure(cluster.nodeB, 'ratelimit.limit', body)).body.data.limit).toBe(5);
  });
});

describe('ratelimit.multiLimit on two server processes', () => {
  it('is all-or-nothing under concurrency: both counters are charged together, exactly', async () => {
    const first = { namespace: 'multi_node_a', identifier: 'user_1', limit: 30, duration: LONG_WINDOW };
    const second = { namespace: 'multi_node_b', identifier: 'user_1', limit: 40, duration: LONG_WINDOW, cost: 2 };
    const passed = await burst(80, 'ratelimit.multiLimit', [first, second], (data) => data.passed);
    // The second allows 20 calls (cost 2 of 40), the first 30: the call passes only while both do.
    if (REDIS_URL) {
      expect(passed.a + passed.b).toBe(20);
    } else {
      expect(passed).toEqual({ a: 20, b: 20 });
    }
    // Nothing was charged for the failed calls: the first counter holds exactly the passes.
    const check = await cluster.callProcedure(cluster.nodeA, 'ratelimit.limit', { ...first, cost: 0 });
    expect(check.body.data.remaining).toBe(30 - (REDIS_URL ? 20 : passed.a));
  });
});

describe('the workspace API rate limit on two server processes', () => {
  it('is one budget for both nodes (each node its own without Redis)', async () => {
    const em = () => cluster.database.orm.em.fork();
    const { workspaceId, rootKey } = await em().transactional((tx) =>
      bootstrapWorkspace(workspaceStore(tx), { name: 'limited' }),
    );
    await setWorkspaceApiRateLimit(em(), createChangeLog(), workspaceId, 4);
    const statuses: Record<'a' | 'b', number[]> = { a: [], b: [] };
    for (let index = 0; index < 12; index++) {
      const [name, node] = index % 2 === 0 ? (['a', cluster.nodeA] as const) : (['b', cluster.nodeB] as const);
      const reply = await callAt(node.url, 'apis.createApi', { name: `limited-${index}` }, rootKey);
      statuses[name].push(reply.status);
    }
    const passed = (node: 'a' | 'b') => statuses[node].filter((status) => status === 200).length;
    expect([...statuses.a, ...statuses.b].every((status) => status === 200 || status === 429)).toBe(true);
    if (REDIS_URL) {
      expect(passed('a') + passed('b')).toBe(4);
    } else {
      expect({ a: passed('a'), b: passed('b') }).toEqual({ a: 4, b: 4 });
    }
  });
});
