import { MemoryRateLimitEngine } from './memoryEngine.ts';
import { RedisRateLimitEngine } from './redisEngine.ts';
import type { RateLimitEngine } from './types.ts';

export interface RateLimitEngineConfig {
  /** Without it the engine is in-process only, exact for a single server process. */
  redisUrl?: string;
  keyPrefix?: string;
  onFallback?: (error: Error) => void;
}

export function createRateLimitEngine(config: RateLimitEngineConfig = {}): RateLimitEngine {
  const { redisUrl, keyPrefix, onFallback } = config;
  return redisUrl === undefined
    ? new MemoryRateLimitEngine({ keyPrefix })
    : new RedisRateLimitEngine({ redisUrl, keyPrefix, onFallback });
}
