import { afterEach, describe, expect, it } from 'vitest';
import { RedisRateLimitEngine } from '../src/redisEngine.ts';
import type { CheckOptions, LimitRequest, RedisFailureMode } from '../src/types.ts';
import { type OwnRedis, startOwnRedis } from './ownRedis.ts';
import { startRedisProxy } from './redisProxy.ts';

// Half-way through a minute, on a clock that stands still: every check of a test is in one window.
const NOW = 28_333_334 * 60_000 + 30_000;
const PER_MINUTE: LimitRequest = { key: 'ws_1:key:key_1:requests', limit: 50, durationMs: 60_000, cost: 1 };
const IN_WORKSPACE: CheckOptions = { hashTag: 'ws_1' };

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function ownRedis(): Promise<OwnRedis> {
  const redis = await startOwnRedis();
  cleanups.push(() => redis.kill());
  return redis;
}

async function engineOn(redisUrl: string, redisFailure: RedisFailureMode, fallbacks: Error[] = []) {
  const engine = new RedisRateLimitEngine({
    redisUrl,
    now: () => NOW,
    redisFailure,
    onFallback: (error) => fallbacks.push(error),
  });
  cleanups.push(() => engine.close());
  await engine.ready();
  return engine;
}

/** Waits for the engine to be connected again; a reconnection attempt made before the restart may fail. */
async function reconnected(engine: RedisRateLimitEngine): Promise<void> {
  for (;;) {
    try {
      return await engine.ready();
    } catch {}
  }
}

/** How many of `count` checks, made one after another, pass. */
async function passes(
  engine: RedisRateLimitEngine,
  count: number,
  options: CheckOptions = IN_WORKSPACE,
): Promise<number> {
  let passed = 0;
  for (let made = 0; made < count; made++) {
    if ((await engine.check([PER_MINUTE], options)).passed) passed++;
  }
  return passed;
}

/**
 * One engine admits 50 through Redis, keeps checking while Redis is dead, then after it came back
 * empty (restarted without persistence): how many pass in each phase.
 */
async function throughOutage(redisFailure: RedisFailureMode) {
  const redis = await ownRedis();
  const fallbacks: Error[] = [];
  const engine = await engineOn(redis.url, redisFailure, fallbacks);
  const beforeOutage = await passes(engine, 50);
  expect(fallbacks).toEqual([]);
  expect(engine.connection).toBe('ready');

  await redis.kill();
  const duringOutage = await passes(engine, 100);
  expect(fallbacks).toHaveLength(100);

  await redis.start();
  await reconnected(engine);
  expect(engine.connection).toBe('ready');
  const afterRestart = await passes(engine, 100);
  expect(fallbacks).toHaveLength(100);
  return { beforeOutage, duringOutage, afterRestart };
}

describe('a Redis outage, by RATELIMIT_REDIS_FAILURE', () => {
  it('local: judges in-process from what this process admitted, and writes its counts back to an empty Redis', async () => {
    expect(await throughOutage('local')).toEqual({ beforeOutage: 50, duringOutage: 0, afterRestart: 0 });
  });

  it('open: passes every check while Redis is unreachable, and counts none of them', async () => {
    expect(await throughOutage('open')).toEqual({ beforeOutage: 50, duringOutage: 100, afterRestart: 50 });
  });

  it('closed: refuses every check while Redis is unreachable, and writes its counts back to an empty Redis', async () => {
    expect(await throughOutage('closed')).toEqual({ beforeOutage: 50, duringOutage: 0, afterRestart: 0 });
  });

  it('local, on two processes: each admits at most the limit in the window', async () => {
    const redis = await ownRedis();
    const [first, second] = [await engineOn(redis.url, 'local'), await engineOn(redis.url, 'local')];
    expect([await passes(first, 30), await passes(second, 20)]).toEqual([30, 20]);

    await redis.kill();
    expect([await passes(first, 100), await passes(second, 100)]).toEqual([20, 30]);

    await redis.start();
    await Promise.all([reconnected(first), reconnected(second)]);
    expect([await passes(first, 100), await passes(second, 100)]).toEqual([0, 0]);
  });

  it('judges a check that asks for it in-process whatever the mode', async () => {
    const redis = await ownRedis();
    const engine = await engineOn(redis.url, 'closed');
    const inProcess: CheckOptions = { ...IN_WORKSPACE, redisFailure: 'local' };
    expect(await passes(engine, 20, inProcess)).toBe(20);

    await redis.kill();
    expect(await passes(engine, 100, inProcess)).toBe(30);
    expect(await passes(engine, 1)).toBe(0);
  });
});

describe('counts written back after an outage', () => {
  it('leave two engines on one Redis sharing the limit exactly', async () => {
    const redis = await ownRedis();
    const proxy = await startRedisProxy(redis.port);
    cleanups.push(() => proxy.close());
    const fallbacks: Error[] = [];
    const [cutOff, other] = [await engineOn(proxy.url, 'local', fallbacks), await engineOn(redis.url, 'local')];
    expect([await passes(cutOff, 20), await passes(other, 10)]).toEqual([20, 10]);

    // Redis counts this check, but its answer never arrives: judged in-process too, from 20.
    proxy.freeze();
    expect(await passes(cutOff, 1)).toBe(1);
    expect(fallbacks.map(({ message }) => message)).toEqual(['Redis did not answer within 200 ms']);
    proxy.thaw();

    // Redis has 31 and this process 21 of its own, written back before its next check: the larger
    // stands, not their sum.
    let passed = 0;
    for (let turn = 0; turn < 40; turn++) passed += await passes(turn % 2 ? other : cutOff, 1);
    expect(passed).toBe(19);
    expect(fallbacks).toHaveLength(1);
  });
});
