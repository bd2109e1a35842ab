import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryRateLimitEngine } from '../src/memoryEngine.ts';
import { RedisRateLimitEngine } from '../src/redisEngine.ts';
import type { LimitRequest, RateLimitEngine } from '../src/types.ts';
import { deleteKeysWithPrefix, REDIS_URL, randomKeyPrefix } from './redisTesting.ts';

interface EngineUnderTest {
  engine: RateLimitEngine;
  fallbacks: Error[];
}

const engines: Array<{ name: string; create: (keyPrefix: string, now: () => number) => Promise<EngineUnderTest> }> = [
  {
    name: 'memory',
    create: async (keyPrefix, now) => ({ engine: new MemoryRateLimitEngine({ keyPrefix, now }), fallbacks: [] }),
  },
  {
    name: 'redis',
    create: async (keyPrefix, now) => {
      const fallbacks: Error[] = [];
      const engine = new RedisRateLimitEngine({
        redisUrl: REDIS_URL,
        keyPrefix,
        now,
        onFallback: (error) => fallbacks.push(error),
      });
      await engine.ready();
      return { engine, fallbacks };
    },
  },
];

const WINDOW_START = 1_700_000_000_000;

function request(key: string, cost = 1, limit = 10, durationMs = 1000): LimitRequest {
  return { key, limit, durationMs, cost };
}

describe.each(engines)('$name engine', ({ create }) => {
  let nowMs = WINDOW_START;
  let keyPrefix = '';
  let engine: RateLimitEngine;
  let fallbacks: Error[];

  beforeEach(async () => {
    nowMs = WINDOW_START;
    keyPrefix = randomKeyPrefix();
    ({ engine, fallbacks } = await create(keyPrefix, () => nowMs));
  });

  afterEach(async () => {
    expect(fallbacks).toEqual([]);
    await engine.close();
    await deleteKeysWithPrefix(keyPrefix);
  });

  async function checkOne(limitRequest: LimitRequest) {
    const { passed, results } = await engine.check([limitRequest]);
    expect(results).toHaveLength(1);
    expect(results[0]?.passed).toBe(passed);
    return results[0];
  }

  it('lets the limit through and rejects the next request', async () => {
    for (let remaining = 9; remaining >= 0; remaining--) {
      expect(await checkOne(request('a'))).toEqual({ passed: true, remaining, reset: WINDOW_START + 1000, limit: 10 });
    }
    expect(await checkOne(request('a'))).toEqual({
      passed: false,
      remaining: 0,
      reset: WINDOW_START + 1000,
      limit: 10,
      retryAfter: 1100,
    });
  });

  describe('retryAfter of a refused request: it passes then, and not a millisecond before', () => {
    async function expectPassesAfter(refused: LimitRequest, waitMs: number) {
      const refusedAt = nowMs;
      expect(await checkOne(refused)).toMatchObject({ passed: false, retryAfter: waitMs });
      nowMs = refusedAt + waitMs - 1;
      expect(await checkOne(refused)).toMatchObject({ passed: false });
      nowMs = refusedAt + waitMs;
      expect(await checkOne(refused)).toMatchObject({ passed: true });
    }

    it('waits into the next window while this one still weighs', async () => {
      expect(await checkOne(request('a', 10))).toMatchObject({ passed: true });
      // At 100 ms into the next window these 10 weigh 9, leaving room for 1.
      await expectPassesAfter(request('a'), 1100);
    });

    it('waits within this window until enough of the previous one has slid out', async () => {
      expect(await checkOne(request('a', 10))).toMatchObject({ passed: true });
      nowMs = WINDOW_START + 1500;
      expect(await checkOne(request('a', 5))).toMatchObject({ passed: true, remaining: 0 });
      // 5 here and 10 weighing 0.5: a request of 2 fits once the previous window weighs 3, at 1700.
      await expectPassesAfter(request('a', 2), 200);
    });

    it('for a cost above the limit, which never passes, gives the end of the window', async () => {
      nowMs = WINDOW_START + 250;
      expect(await checkOne(request('a', 11))).toMatchObject({ passed: false, retryAfter: 750 });
    });

    it('is given only for the limits that refuse', async () => {
      expect(await checkOne(request('burst', 2, 2))).toMatchObject({ passed: true });
      const { results } = await engine.check([request('daily', 1, 100, 60_000), request('burst', 1, 2)]);
      expect(results.map((result) => result.retryAfter)).toEqual([undefined, 1500]);
    });
  });

  it('consumes the cost', async () => {
    expect(await checkOne(request('a', 3))).toMatchObject({ passed: true, remaining: 7 });
    expect(await checkOne(request('a', 7))).toMatchObject({ passed: true, remaining: 0 });
    expect(await checkOne(request('a', 1))).toMatchObject({ passed: false, remaining: 0 });
  });

  it('keeps counting in windows of up to 30 days (longer than a Node timer can wait)', async () => {
    const month = request('a', 1, 2, 2_592_000_000);
    expect(await checkOne(month)).toMatchObject({ passed: true, remaining: 1 });
    expect(await checkOne(month)).toMatchObject({ passed: true, remaining: 0 });
    // A timer armed for longer than 2^31 - 1 ms fires at once; give it the chance to.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await checkOne(month)).toMatchObject({ passed: false, remaining: 0 });
  });

  it('checks without consuming at cost 0, even at the limit', async () => {
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 10 });
    expect(await checkOne(request('a', 10))).toMatchObject({ passed: true, remaining: 0 });
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 0 });
    expect(await checkOne(request('a', 1))).toMatchObject({ passed: false, remaining: 0 });
  });

  it('rejects everything but cost 0 when the limit is 0', async () => {
    expect(await checkOne(request('a', 1, 0))).toMatchObject({ passed: false, remaining: 0 });
    expect(await checkOne(request('a', 0, 0))).toMatchObject({ passed: true, remaining: 0 });
  });

  it('weighs the previous window by its remaining overlap', async () => {
    expect(await checkOne(request('a', 10))).toMatchObject({ passed: true, remaining: 0 });
    nowMs = WINDOW_START + 1500;
    for (let remaining = 4; remaining >= 0; remaining--) {
      expect(await checkOne(request('a'))).toEqual({ passed: true, remaining, reset: WINDOW_START + 2000, limit: 10 });
    }
    expect(await checkOne(request('a'))).toMatchObject({ passed: false, remaining: 0 });
    nowMs = WINDOW_START + 1750;
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 2 });
    nowMs = WINDOW_START + 2500;
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 7 });
    nowMs = WINDOW_START + 3000;
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 10 });
  });

  it('resets at the end of the clock-aligned fixed window', async () => {
    nowMs = WINDOW_START + 250;
    expect(await checkOne(request('a'))).toMatchObject({ reset: WINDOW_START + 1000 });
    expect(await checkOne(request('b', 1, 10, 60_000))).toMatchObject({
      reset: (Math.floor(nowMs / 60_000) + 1) * 60_000,
    });
  });

  it('reports 0 remaining for a rejected request, though units are left, and consumes nothing', async () => {
    expect(await checkOne(request('a', 6))).toMatchObject({ passed: true, remaining: 4 });
    expect(await checkOne(request('a', 5))).toMatchObject({ passed: false, remaining: 0 });
    expect(await checkOne(request('a', 4))).toMatchObject({ passed: true, remaining: 0 });
  });

  it('applies several limits all-or-nothing, reporting each in request order', async () => {
    expect((await engine.check([request('burst', 2, 2)])).passed).toBe(true);

    const rejected = await engine.check([request('daily', 1, 100, 60_000), request('burst', 1, 2)]);
    expect(rejected).toEqual({
      passed: false,
      results: [
        { passed: true, remaining: 100, reset: (Math.floor(nowMs / 60_000) + 1) * 60_000, limit: 100 },
        { passed: false, remaining: 0, reset: WINDOW_START + 1000, limit: 2, retryAfter: 1500 },
      ],
    });
    expect(await checkOne(request('daily', 0, 100, 60_000))).toMatchObject({ passed: true, remaining: 100 });

    // A limit refused for its cost alone reports 0 too, and the one that would pass keeps its units.
    nowMs = WINDOW_START + 3000;
    const tooCostly = await engine.check([request('daily', 5, 100, 60_000), request('burst', 3, 2)]);
    expect(tooCostly.results.map(({ passed, remaining }) => ({ passed, remaining }))).toEqual([
      { passed: true, remaining: 100 },
      { passed: false, remaining: 0 },
    ]);

    nowMs = WINDOW_START + 2000;
    const accepted = await engine.check([request('daily', 1, 100, 60_000), request('burst', 1, 2)]);
    expect(accepted.passed).toBe(true);
    expect(accepted.results.map(({ passed, remaining }) => ({ passed, remaining }))).toEqual([
      { passed: true, remaining: 99 },
      { passed: true, remaining: 1 },
    ]);
  });

  it('judges a counter named twice in one check against the counts before it, and adds both costs', async () => {
    expect(await checkOne(request('a', 2))).toMatchObject({ passed: true, remaining: 8 });
    const twice = await engine.check([request('a', 3), request('a', 4)]);
    expect(twice).toEqual({
      passed: true,
      results: [
        { passed: true, remaining: 5, reset: WINDOW_START + 1000, limit: 10 },
        { passed: true, remaining: 4, reset: WINDOW_START + 1000, limit: 10 },
      ],
    });
    expect(await checkOne(request('a', 0))).toMatchObject({ passed: true, remaining: 1 });
  });

  it('keeps keys and hash tags independent', async () => {
    expect(await checkOne(request('a', 10))).toMatchObject({ passed: true });
    expect(await checkOne(request('a'))).toMatchObject({ passed: false });
    expect(await checkOne(request('b'))).toMatchObject({ passed: true, remaining: 9 });
    const tagged = await engine.check([request('a')], { hashTag: 'ws_1' });
    expect(tagged.results[0]).toMatchObject({ passed: true, remaining: 9 });
    const otherTag = await engine.check([request('a', 2)], { hashTag: 'ws_2' });
    expect(otherTag.results[0]).toMatchObject({ passed: true, remaining: 8 });
  });

  it('stays exact under concurrent checks', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => engine.check([request('a', 1, 50)], { hashTag: 'ws_1' })),
    );
    expect(outcomes.filter(({ passed }) => passed)).toHaveLength(50);
  });

  it('answers an empty check', async () => {
    expect(await engine.check([])).toEqual({ passed: true, results: [] });
  });

  it('refuses invalid requests', async () => {
    await expect(engine.check([request('a', -1)])).rejects.toThrow(RangeError);
    await expect(engine.check([request('a', 1.5)])).rejects.toThrow(RangeError);
    await expect(engine.check([request('a', 1, 10, 999)])).rejects.toThrow(RangeError);
    await expect(engine.check([request('', 1)])).rejects.toThrow(RangeError);
  });
});
