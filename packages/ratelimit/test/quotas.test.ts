import { afterEach, describe, expect, it } from 'vitest';
import { createQuotas, type Quotas } from '../src/quotas.ts';
import { startOwnRedis } from './ownRedis.ts';
import { deleteKeysWithPrefix, REDIS_URL, randomKeyPrefix } from './redisTesting.ts';

const opened: Quotas[] = [];
const prefixes: string[] = [];
afterEach(async () => {
  for (const quotas of opened.splice(0)) await quotas.close();
  for (const prefix of prefixes.splice(0)) await deleteKeysWithPrefix(prefix);
});

function quotasOn(redisUrl?: string): Quotas {
  const keyPrefix = randomKeyPrefix();
  prefixes.push(keyPrefix);
  const quotas = createQuotas({ redisUrl, keyPrefix });
  opened.push(quotas);
  return quotas;
}

async function readyQuota(redisUrl: string) {
  const quotas = quotasOn(redisUrl);
  await quotas.ready();
  return quotas.quota('api', 60);
}

async function consumeTimes(quota: ReturnType<Quotas['quota']>, key: string, limit: number, times: number) {
  const passed: boolean[] = [];
  for (let index = 0; index < times; index++) passed.push((await quota.consume(key, limit)).passed);
  return passed;
}

describe('quotas on Redis', () => {
  it('share one count between every process (two clients, one Redis)', async () => {
    const keyPrefix = randomKeyPrefix();
    prefixes.push(keyPrefix);
    const [first, second] = [
      createQuotas({ redisUrl: REDIS_URL, keyPrefix }),
      createQuotas({ redisUrl: REDIS_URL, keyPrefix }),
    ];
    opened.push(first, second);
    await Promise.all([first.ready(), second.ready()]);
    const a = first.quota('api', 60);
    const b = second.quota('api', 60);
    expect([...(await consumeTimes(a, 'ws_1', 3, 2)), ...(await consumeTimes(b, 'ws_1', 3, 2))]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(await a.peek('ws_1', 3)).toMatchObject({ remaining: 0, passed: false });
  });

  it('keep keys and quotas apart, and tell how much is left and when the window ends', async () => {
    const quotas = quotasOn(REDIS_URL);
    await quotas.ready();
    const api = quotas.quota('api', 60);
    const hourly = quotas.quota('analytics', 3600);
    const first = await api.consume('ws_1', 2);
    expect(first).toMatchObject({ limit: 2, remaining: 1, passed: true });
    expect(first.resetMs).toBeGreaterThan(59_000);
    expect(first.resetMs).toBeLessThanOrEqual(60_000);
    expect(await api.consume('ws_2', 2)).toMatchObject({ remaining: 1, passed: true });
    expect((await hourly.consume('ws_1', 2)).resetMs).toBeGreaterThan(3_599_000);
  });

  it('count refused requests too', async () => {
    const api = await readyQuota(REDIS_URL);
    expect(await consumeTimes(api, 'ws_1', 1, 3)).toEqual([true, false, false]);
    expect(await api.peek('ws_1', 1)).toMatchObject({ remaining: 0, passed: false });
  });

  it('give back a request counted, in the window that counted it', async () => {
    const api = await readyQuota(REDIS_URL);
    expect(await consumeTimes(api, 'ws_1', 2, 2)).toEqual([true, true]);
    await api.refund('ws_1', 2);
    expect(await api.peek('ws_1', 2)).toMatchObject({ remaining: 1, passed: true });
    expect(await consumeTimes(api, 'ws_1', 2, 2)).toEqual([true, false]);
  });

  it('refuse everything for a limit of 0', async () => {
    const api = await readyQuota(REDIS_URL);
    expect(await api.consume('ws_1', 0)).toMatchObject({ remaining: 0, passed: false });
  });

  it('count a key with a new limit from zero', async () => {
    const api = await readyQuota(REDIS_URL);
    expect(await consumeTimes(api, 'ws_1', 1, 2)).toEqual([true, false]);
    expect(await api.consume('ws_1', 5)).toMatchObject({ remaining: 4, passed: true });
  });
});

describe('quotas while Redis is away', () => {
  it('are counted in this process (the insurance limiter), and again in Redis once it is back', async () => {
    const redis = await startOwnRedis();
    try {
      const quotas = quotasOn(redis.url);
      await quotas.ready();
      const api = quotas.quota('api', 60);
      expect(await consumeTimes(api, 'ws_1', 2, 1)).toEqual([true]);
      await redis.kill();
      // The process's own count starts at zero: a quota protects the service, it is not exact.
      expect(await consumeTimes(api, 'ws_1', 2, 3)).toEqual([true, true, false]);
    } finally {
      await redis.kill();
    }
  });

  it('are counted in this process alone without Redis', async () => {
    const api = quotasOn(undefined).quota('api', 60);
    expect(await consumeTimes(api, 'ws_1', 2, 3)).toEqual([true, true, false]);
  });
});
