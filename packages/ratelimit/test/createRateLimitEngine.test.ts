import { describe, expect, it } from 'vitest';
import { createRateLimitEngine } from '../src/createRateLimitEngine.ts';
import { MemoryRateLimitEngine } from '../src/memoryEngine.ts';
import { RedisRateLimitEngine } from '../src/redisEngine.ts';
import { REDIS_URL } from './redisTesting.ts';

describe('createRateLimitEngine', () => {
  it('runs in memory without a Redis URL', async () => {
    const engine = createRateLimitEngine();
    expect(engine).toBeInstanceOf(MemoryRateLimitEngine);
    await engine.close();
  });

  it('uses Redis when given its URL', async () => {
    const engine = createRateLimitEngine({ redisUrl: REDIS_URL });
    expect(engine).toBeInstanceOf(RedisRateLimitEngine);
    await engine.close();
  });
});
