import { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimitEngine } from '../src/createRateLimitEngine.ts';
import { createQuotas } from '../src/quotas.ts';
import { RedisRateLimitEngine } from '../src/redisEngine.ts';
import type { LimitRequest } from '../src/types.ts';
import { type OwnRedisCluster, startOwnRedisCluster } from './ownRedis.ts';
import { randomKeyPrefix } from './redisTesting.ts';

// Thirty days (the longest window the API allows): a test run never straddles a window boundary.
const WINDOW_MS = 2_592_000_000;
const WORKSPACES = Array.from({ length: 12 }, (_, index) => `ws_${index}`);

let cluster: OwnRedisCluster;
let admin: Cluster;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  cluster = await startOwnRedisCluster();
  admin = new Cluster(cluster.nodes);
}, 60_000);

afterAll(async () => {
  admin?.disconnect();
  await cluster?.kill();
});

afterEach(async () => {
  cluster.thaw();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function engineOnCluster(keyPrefix: string, fallbacks: Error[] = []): Promise<RedisRateLimitEngine> {
  const engine = new RedisRateLimitEngine({
    redisCluster: { nodes: cluster.nodes },
    keyPrefix,
    onFallback: (error) => fallbacks.push(error),
  });
  cleanups.push(() => engine.close());
  await engine.ready();
  return engine;
}

/** Every key under `keyPrefix` in the cluster, with its count and the port of the master holding it. */
async function keysInCluster(keyPrefix: string): Promise<Map<string, { count: number; port: number }>> {
  const found = new Map<string, { count: number; port: number }>();
  for (const master of admin.nodes('master')) {
    for (const key of await master.keys(`${keyPrefix}*`)) {
      found.set(key, { count: Number(await master.get(key)), port: master.options.port as number });
    }
  }
  return found;
}

/** The count of the one window key of `counter` (a key after the prefix, hash tag included). */
async function countOf(keyPrefix: string, counter: string): Promise<number | undefined> {
  const windows = [...(await keysInCluster(`${keyPrefix}${counter}:`)).values()];
  expect(windows.length).toBeLessThanOrEqual(1);
  return windows[0]?.count;
}

function perWindow(key: string, limit: number): LimitRequest {
  return { key, limit, durationMs: WINDOW_MS, cost: 1 };
}

describe('the engine on a Redis Cluster of three masters', () => {
  it('is exact across processes under concurrency, counting in the cluster', async () => {
    const keyPrefix = randomKeyPrefix();
    const fallbacks: Error[] = [];
    const processes = [await engineOnCluster(keyPrefix, fallbacks), await engineOnCluster(keyPrefix, fallbacks)];
    const limit = perWindow('ws_1:key:key_1:requests', 50);

    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, index) => processes[index % 2]?.check([limit], { hashTag: 'ws_1' })),
    );

    expect(fallbacks).toEqual([]);
    expect(outcomes.filter((outcome) => outcome?.passed)).toHaveLength(50);
    expect(await countOf(keyPrefix, '{ws_1}:ws_1:key:key_1:requests')).toBe(50);
    expect(processes.map(({ connection }) => connection)).toEqual(['ready', 'ready']);
  });

  it('keeps each workspace on one master, and spreads workspaces over the masters', async () => {
    const keyPrefix = randomKeyPrefix();
    const fallbacks: Error[] = [];
    const engine = await engineOnCluster(keyPrefix, fallbacks);

    const outcomes = await Promise.all(
      WORKSPACES.map((workspace) =>
        engine.check([perWindow(`${workspace}:burst`, 5), perWindow(`${workspace}:daily`, 100)], {
          hashTag: workspace,
        }),
      ),
    );

    expect(fallbacks).toEqual([]);
    expect(outcomes.every(({ passed }) => passed)).toBe(true);
    const keys = await keysInCluster(keyPrefix);
    expect(keys.size).toBe(2 * WORKSPACES.length);
    const mastersOf = (workspace: string) =>
      new Set([...keys].filter(([key]) => key.includes(`{${workspace}}`)).map(([, { port }]) => port));
    for (const workspace of WORKSPACES) expect(mastersOf(workspace).size).toBe(1);
    expect(new Set([...keys.values()].map(({ port }) => port)).size).toBeGreaterThan(1);
  });

  it('counts a check on all its limits or on none', async () => {
    const keyPrefix = randomKeyPrefix();
    const engine = await engineOnCluster(keyPrefix);
    const [burst, daily] = [perWindow('burst', 2), perWindow('daily', 100)];

    const passed = [];
    for (let made = 0; made < 4; made++) passed.push((await engine.check([burst, daily], { hashTag: 'ws_1' })).passed);

    expect(passed).toEqual([true, true, false, false]);
    expect(await countOf(keyPrefix, '{ws_1}:daily')).toBe(2);
    expect(await countOf(keyPrefix, '{ws_1}:burst')).toBe(2);
  });

  it('judges a check without a hash tag, of several keys, in one slot', async () => {
    const keyPrefix = randomKeyPrefix();
    const fallbacks: Error[] = [];
    const engine = await engineOnCluster(keyPrefix, fallbacks);

    const outcomes = await Promise.all(
      Array.from({ length: 3 }, () => engine.check([perWindow('a', 2), perWindow('b', 10), perWindow('c', 10)])),
    );

    expect(fallbacks).toEqual([]);
    expect(outcomes.map(({ passed }) => passed)).toEqual([true, true, false]);
    expect(await countOf(keyPrefix, '{untagged}:b')).toBe(2);
  });

  it('answers ping while every master answers, and fails it while they do not', async () => {
    const engine = await engineOnCluster(randomKeyPrefix());
    await expect(engine.ping()).resolves.toBeUndefined();

    cluster.freeze();
    await expect(engine.ping()).rejects.toThrow('Redis did not answer within 200 ms');

    cluster.thaw();
    await expect(engine.ping()).resolves.toBeUndefined();
  });

  it("writes a hash tag's own counts back after an outage before its next check, on whichever master serves it", async () => {
    const keyPrefix = randomKeyPrefix();
    const fallbacks: Error[] = [];
    const engine = await engineOnCluster(keyPrefix, fallbacks);
    for (const workspace of WORKSPACES) {
      for (let made = 0; made < 3; made++) await engine.check([perWindow('requests', 10)], { hashTag: workspace });
    }
    await engine.check([perWindow('requests', 10)]);

    // Admitted in this process, once per tag, while the cluster does not answer.
    cluster.freeze();
    const unanswered = await Promise.all(
      [...WORKSPACES, undefined].map((hashTag) => engine.check([perWindow('requests', 10)], { hashTag })),
    );
    expect(unanswered.every(({ passed }) => passed)).toBe(true);
    expect(new Set(fallbacks.map(({ message }) => message))).toEqual(new Set(['Redis did not answer within 200 ms']));
    cluster.thaw();
    // As if the masters had restarted empty (the late script calls of the frozen checks included).
    await expect(engine.ping()).resolves.toBeUndefined();
    await Promise.all([...(await keysInCluster(keyPrefix)).keys()].map((key) => admin.del(key)));

    // Each tag's counts are written back before its check; a call mixing slots would be refused
    // (CROSSSLOT) and fall back.
    for (const hashTag of [...WORKSPACES, undefined, 'ws_after']) {
      expect((await engine.check([perWindow('requests', 10)], { hashTag })).passed).toBe(true);
    }

    expect(fallbacks).toHaveLength(WORKSPACES.length + 1);
    const counts = Object.fromEntries(
      await Promise.all(
        [...WORKSPACES, 'untagged', 'ws_after'].map(async (tag) => [
          tag,
          await countOf(keyPrefix, `{${tag}}:requests`),
        ]),
      ),
    );
    expect(counts).toEqual({
      ...Object.fromEntries(WORKSPACES.map((workspace) => [workspace, 5])),
      untagged: 3,
      ws_after: 1,
    });
  });
});

describe('createRateLimitEngine given a cluster', () => {
  it('counts on it', async () => {
    const keyPrefix = randomKeyPrefix();
    const engine = createRateLimitEngine({ redisCluster: { nodes: cluster.nodes }, keyPrefix });
    cleanups.push(() => engine.close());
    await expect.poll(() => engine.connection).toBe('ready');

    expect((await engine.check([perWindow('requests', 1)], { hashTag: 'ws_1' })).passed).toBe(true);

    expect(await countOf(keyPrefix, '{ws_1}:requests')).toBe(1);
  });

  it('refuses a Redis URL besides', () => {
    const both = { redisUrl: 'redis://127.0.0.1:6379', redisCluster: { nodes: cluster.nodes } };
    expect(() => createRateLimitEngine(both)).toThrow('Give either a Redis URL or a Redis Cluster, not both');
    expect(() => createQuotas(both)).toThrow('Give either a Redis URL or a Redis Cluster, not both');
  });
});

describe('quotas on a Redis Cluster', () => {
  it('share one count between processes, kept in the cluster', async () => {
    const keyPrefix = randomKeyPrefix();
    const [first, second] = [1, 2].map(() => createQuotas({ redisCluster: { nodes: cluster.nodes }, keyPrefix }));
    cleanups.push(async () => {
      await first?.close();
      await second?.close();
    });
    await Promise.all([first?.ready(), second?.ready()]);
    const quotas = [first?.quota('api', 60), second?.quota('api', 60)];

    const passed = [];
    for (let made = 0; made < 6; made++) passed.push((await quotas[made % 2]?.consume('ws_1', 4))?.passed);
    for (const workspace of WORKSPACES) await quotas[0]?.consume(workspace, 4);

    expect(passed).toEqual([true, true, true, true, false, false]);
    expect(await quotas[1]?.peek('ws_1', 4)).toMatchObject({ remaining: 0, passed: false });
    const keys = await keysInCluster(keyPrefix);
    expect([...keys].find(([key]) => key.endsWith(':ws_1'))?.[1].count).toBe(7);
    expect(new Set([...keys.values()].map(({ port }) => port)).size).toBeGreaterThan(1);
  });
});
