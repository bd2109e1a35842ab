import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisRateLimitEngine } from '../src/redisEngine.ts';
import type { LimitRequest } from '../src/types.ts';
import { type RedisProxy, startRedisProxy } from './redisProxy.ts';
import { deleteKeysWithPrefix, REDIS_URL, randomKeyPrefix } from './redisTesting.ts';

const DEAD_REDIS_URL = 'redis://127.0.0.1:6390';
// Thirty days (the longest window the API allows): a test run never straddles a window boundary.
const WINDOW_MS = 2_592_000_000;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectedEngine(keyPrefix: string, fallbacks: Error[]): Promise<RedisRateLimitEngine> {
  const engine = new RedisRateLimitEngine({
    redisUrl: REDIS_URL,
    keyPrefix,
    onFallback: (error) => fallbacks.push(error),
  });
  cleanups.push(() => engine.close());
  await engine.ready();
  return engine;
}

/**
 * A connected engine talking to Redis through a proxy of its own, which counts its commands and can
 * hold the replies back (`proxy.freeze()`), as on a stalled network.
 */
async function engineBehindProxy(fallbacks: Error[] = []) {
  const proxy = await startRedisProxy(6379);
  cleanups.push(() => proxy.close());
  const engine = new RedisRateLimitEngine({
    redisUrl: proxy.url,
    keyPrefix: usePrefix(),
    onFallback: (error) => fallbacks.push(error),
  });
  cleanups.push(() => engine.close());
  await engine.ready();
  return { engine, proxy };
}

async function adminClient(): Promise<Redis> {
  const admin = new Redis(REDIS_URL);
  cleanups.push(async () => {
    await admin.quit();
  });
  return admin;
}

/** The script calls (eval or evalsha) the engine behind `proxy` makes from now on. */
function watchScriptCalls(proxy: RedisProxy): () => string[] {
  const earlier = proxy.commands.length;
  return () => proxy.commands.slice(earlier).filter((name) => /^eval(sha)?$/.test(name));
}

function usePrefix(): string {
  const keyPrefix = randomKeyPrefix();
  cleanups.push(() => deleteKeysWithPrefix(keyPrefix));
  return keyPrefix;
}

describe('redis engine', () => {
  it('is exact across processes on the Redis server clock', async () => {
    const keyPrefix = usePrefix();
    const fallbacks: Error[] = [];
    const processes = [await connectedEngine(keyPrefix, fallbacks), await connectedEngine(keyPrefix, fallbacks)];
    const limit: LimitRequest = { key: 'ws_1:key:key_1:requests', limit: 50, durationMs: WINDOW_MS, cost: 1 };

    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => processes[i % 2]?.check([limit], { hashTag: 'ws_1' })),
    );

    expect(fallbacks).toEqual([]);
    expect(outcomes.filter((outcome) => outcome?.passed)).toHaveLength(50);
    const [seconds] = await (await adminClient()).time();
    const serverNowMs = Number(seconds) * 1000;
    const resets = new Set(outcomes.map((outcome) => outcome?.results[0]?.reset));
    expect([...resets]).toEqual([(Math.floor(serverNowMs / WINDOW_MS) + 1) * WINDOW_MS]);
  });

  it('answers from memory while Redis is unreachable', async () => {
    const fallbacks: Error[] = [];
    const engine = new RedisRateLimitEngine({ redisUrl: DEAD_REDIS_URL, onFallback: (error) => fallbacks.push(error) });
    cleanups.push(() => engine.close());
    const limit: LimitRequest = { key: 'a', limit: 2, durationMs: WINDOW_MS, cost: 1 };

    const outcomes = [await engine.check([limit]), await engine.check([limit]), await engine.check([limit])];

    expect(outcomes.map(({ passed }) => passed)).toEqual([true, true, false]);
    expect(fallbacks).toHaveLength(3);
    expect(fallbacks[0]).toBeInstanceOf(Error);
  });

  it('answers from memory when a command times out, then returns to Redis', async () => {
    const fallbacks: Error[] = [];
    const { engine, proxy } = await engineBehindProxy(fallbacks);
    const limit: LimitRequest = { key: 'a', limit: 5, durationMs: WINDOW_MS, cost: 1 };

    proxy.freeze();
    const whileStalled = await engine.check([limit]);
    expect(whileStalled.results[0]).toMatchObject({ passed: true, remaining: 4 });
    expect(fallbacks.map(({ message }) => message)).toEqual(['Redis did not answer within 200 ms']);

    proxy.thaw();
    const afterwards = await engine.check([{ ...limit, key: 'b' }]);
    expect(afterwards.results[0]).toMatchObject({ passed: true, remaining: 4 });
    expect(fallbacks).toHaveLength(1);
  });

  it('takes the answer Redis gave in time though this process stalled past the timeout meanwhile', async () => {
    const fallbacks: Error[] = [];
    const engine = await connectedEngine(usePrefix(), fallbacks);
    const limit: LimitRequest = { key: 'a', limit: 5, durationMs: WINDOW_MS, cost: 1 };

    const checking = engine.check([limit]);
    // After the tick that sends the script call: the process is busy (CPU starved, a long
    // collection) while Redis answers, and its timers are due before it reads that answer.
    process.nextTick(() => {
      const until = performance.now() + 400;
      while (performance.now() < until);
    });
    expect((await checking).results[0]).toMatchObject({ passed: true, remaining: 4 });
    expect(fallbacks).toEqual([]);
  });

  it('sends the script once per connection, then only its hash', async () => {
    const { engine, proxy } = await engineBehindProxy();
    const scriptCalls = watchScriptCalls(proxy);

    for (let i = 0; i < 5; i++) await engine.check([{ key: 'a', limit: 10, durationMs: WINDOW_MS, cost: 1 }]);

    expect(scriptCalls()).toEqual(['eval', 'evalsha', 'evalsha', 'evalsha', 'evalsha']);
  });

  it('sends checks of one hash tag made together as one script call, judged in the order they were made', async () => {
    const { engine, proxy } = await engineBehindProxy();
    await engine.check([{ key: 'warm-up', limit: 1, durationMs: WINDOW_MS, cost: 0 }], { hashTag: 'ws_1' });
    const scriptCalls = watchScriptCalls(proxy);
    const limit: LimitRequest = { key: 'a', limit: 3, durationMs: WINDOW_MS, cost: 1 };

    const outcomes = await Promise.all(Array.from({ length: 5 }, () => engine.check([limit], { hashTag: 'ws_1' })));

    expect(outcomes.map(({ passed, results }) => [passed, results[0]?.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
    expect(scriptCalls()).toHaveLength(1);
  });

  it('sends the checks of requests handled together as one call, however many steps in each makes its check', async () => {
    const { engine, proxy } = await engineBehindProxy();
    await engine.check([{ key: 'warm-up', limit: 1, durationMs: WINDOW_MS, cost: 0 }], { hashTag: 'ws_1' });
    const scriptCalls = watchScriptCalls(proxy);
    const handle = async (steps: number) => {
      for (let step = 0; step < steps; step++) await Promise.resolve();
      return engine.check([{ key: 'a', limit: 10, durationMs: WINDOW_MS, cost: 1 }], { hashTag: 'ws_1' });
    };

    const outcomes = await Promise.all([1, 3, 2, 5].map(handle));

    expect(outcomes.map(({ results }) => results[0]?.remaining)).toEqual([9, 7, 8, 6]);
    expect(scriptCalls()).toHaveLength(1);
  });

  it('keeps every check of a shared call all-or-nothing: a rejected one consumes none of its limits', async () => {
    const keyPrefix = usePrefix();
    const engine = await connectedEngine(keyPrefix, []);
    const burst: LimitRequest = { key: 'burst', limit: 1, durationMs: WINDOW_MS, cost: 1 };
    const daily: LimitRequest = { key: 'daily', limit: 10, durationMs: WINDOW_MS, cost: 1 };

    const [first, second, third] = await Promise.all([
      engine.check([burst, daily], { hashTag: 'ws_1' }),
      engine.check([burst, daily], { hashTag: 'ws_1' }),
      engine.check([daily], { hashTag: 'ws_1' }),
    ]);

    expect(first?.passed).toBe(true);
    expect(second?.results.map(({ passed, remaining }) => ({ passed, remaining }))).toEqual([
      { passed: false, remaining: 0 },
      { passed: true, remaining: 9 },
    ]);
    expect(third?.results[0]).toMatchObject({ passed: true, remaining: 8 });
  });

  it('judges limits of different sizes on one counter in a shared call each by its own size', async () => {
    const keyPrefix = usePrefix();
    const engine = await connectedEngine(keyPrefix, []);
    const small = (cost: number): LimitRequest => ({ key: 'a', limit: 2, durationMs: WINDOW_MS, cost });
    const large = (cost: number): LimitRequest => ({ key: 'a', limit: 5, durationMs: WINDOW_MS, cost });

    const outcomes = await Promise.all(
      [small(1), large(1), small(1), large(4), large(3)].map((limit) => engine.check([limit], { hashTag: 'ws_1' })),
    );

    expect(outcomes.map(({ passed, results }) => [passed, results[0]?.remaining, results[0]?.limit])).toEqual([
      [true, 1, 2],
      [true, 3, 5],
      [false, 0, 2],
      [false, 0, 5],
      [true, 0, 5],
    ]);
  });

  it('answers every check of a failed shared call from memory', async () => {
    const fallbacks: Error[] = [];
    const { engine, proxy } = await engineBehindProxy(fallbacks);
    const limit: LimitRequest = { key: 'a', limit: 2, durationMs: WINDOW_MS, cost: 1 };

    proxy.freeze();
    const outcomes = await Promise.all(Array.from({ length: 3 }, () => engine.check([limit], { hashTag: 'ws_1' })));

    expect(outcomes.map(({ passed }) => passed)).toEqual([true, true, false]);
    expect(fallbacks.map(({ message }) => message)).toEqual([
      'Redis did not answer within 200 ms',
      'Redis did not answer within 200 ms',
      'Redis did not answer within 200 ms',
    ]);

    proxy.thaw();
    const afterwards = await engine.check([{ ...limit, key: 'b' }], { hashTag: 'ws_1' });
    expect(afterwards.results[0]).toMatchObject({ passed: true, remaining: 1 });
    expect(fallbacks).toHaveLength(3);
  });
});
