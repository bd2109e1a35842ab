import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace } from '@keyplane/core';
import { setWorkspaceApiRateLimit, workspaceStore } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../../../bench/server.ts';
import { callAt } from './harness.ts';
import { useServersOnOwnCluster } from './ownCluster.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';
import { LONG_WINDOW } from './ratelimit.ts';

// Two server processes counting on a Redis Cluster of three masters of this file's own (started from
// redis-server on free loopback ports), one configured by a redis+cluster:// REDIS_URL, the other by
// REDIS_CLUSTER_NODES (docs/architecture.md, Redis Cluster).

const servers = useServersOnOwnCluster(({ cluster, database }) => {
  const byUrl = { REDIS_URL: cluster.url };
  const byNodes = { REDIS_CLUSTER_NODES: cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',') };
  return [byUrl, byNodes].map((redis) => ({ DATABASE_URL: database.url, ...redis }));
});
const { nodes } = servers;

beforeAll(async () => {
  // A node listens before its cluster connection is ready (until then it limits in-process), as a
  // balancer waits for readiness before it sends traffic.
  await untilReady();
}, 60_000);

/** `count` concurrent calls, alternating between the nodes: how many `succeeded`. */
async function burst<P extends ProcedurePath>(
  count: number,
  procedure: P,
  input: InputOf<P>,
  succeeded: (reply: Awaited<ReturnType<typeof callAt<P>>>) => boolean,
): Promise<number> {
  const replies = await Promise.all(
    Array.from({ length: count }, (_, index) => callAt(nodes[index % 2]?.url ?? '', procedure, input, servers.rootKey)),
  );
  expect(replies.map(({ status }) => status)).toEqual(Array(count).fill(200));
  return replies.filter(succeeded).length;
}

/** The values of every key in the cluster under `pattern`, from whichever master holds it. */
async function valuesInCluster(pattern: string): Promise<string[]> {
  const values = [];
  for (const master of servers.admin.nodes('master')) {
    for (const key of await master.keys(pattern)) values.push(String(await master.get(key)));
  }
  return values;
}

async function readinessStatuses(): Promise<number[]> {
  return Promise.all(nodes.map(async ({ url }) => (await fetch(`${url}/v2/readiness`)).status));
}

async function untilReady(): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if ((await readinessStatuses()).every((status) => status === 200)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the nodes did not become ready on the cluster within 10 s');
}

describe('two server processes on a Redis Cluster', () => {
  it('allow exactly the limit of ratelimit.limit across both, counted in the cluster', async () => {
    const body = { namespace: 'on_cluster', identifier: 'user_1', limit: 50, duration: LONG_WINDOW };

    expect(await burst(200, 'ratelimit.limit', body, ({ body }) => body.data.success)).toBe(50);

    expect(await valuesInCluster('keyplane:ratelimit:*')).toContain('50');
  });

  it('charge both counters of ratelimit.multiLimit together or neither, exactly', async () => {
    const first = { namespace: 'on_cluster_a', identifier: 'user_1', limit: 30, duration: LONG_WINDOW };
    const second = { namespace: 'on_cluster_b', identifier: 'user_1', limit: 40, duration: LONG_WINDOW, cost: 2 };

    // The second allows 20 calls (cost 2 of 40), the first 30: a call passes only while both do.
    expect(await burst(80, 'ratelimit.multiLimit', [first, second], ({ body }) => body.data.passed)).toBe(20);
  });

  it('share the workspace API rate limit (a quota) as one budget, counted in the cluster', async () => {
    const em = () => servers.database.orm.em.fork();
    const limited = await em().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'limited' }));
    await setWorkspaceApiRateLimit(em(), createChangeLog(), limited.workspaceId, 4);

    const statuses = [];
    for (let index = 0; index < 12; index++) {
      const node = nodes[index % 2]?.url ?? '';
      statuses.push((await callAt(node, 'apis.createApi', { name: `limited-${index}` }, limited.rootKey)).status);
    }

    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8);
    expect(await valuesInCluster(`keyplane:quota:*:${limited.workspaceId}`)).toEqual(['12']);
  });

  it('are not ready while the cluster does not answer, and ready again once it does', async () => {
    servers.cluster.freeze();
    try {
      expect(await readinessStatuses()).toEqual([503, 503]);
    } finally {
      servers.cluster.thaw();
    }
    expect(await readinessStatuses()).toEqual([200, 200]);
  });
});

describe('a server given a malformed cluster', () => {
  it.each([
    ['REDIS_CLUSTER_NODES', '127.0.0.1'],
    ['REDIS_URL', 'redis+cluster://127.0.0.1:7000/0'],
  ])('exits 78 naming %s', async (name, value) => {
    const start = spawnServer({ DATABASE_URL: servers.database.url, [name]: value });
    await expect(start).rejects.toThrow(new RegExp(`server exited with 78[\\s\\S]*${name}: must`));
  });
});
