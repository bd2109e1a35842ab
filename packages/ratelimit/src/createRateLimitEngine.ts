import { MemoryRateLimitEngine } from './memoryEngine.ts';
import { RedisRateLimitEngine } from './redisEngine.ts';
import type { RateLimitEngine, RedisFailureMode } from './types.ts';

export interface RateLimitEngineConfig {
  /** Without it the engine is in-process only, exact for a single server process. */
  redisUrl?: string;
  keyPrefix?: string;
  /** How checks are answered while Redis is unreachable; `local` when omitted. */
  redisFailure?: RedisFailureMode;
  onFallback?: (error: Error) => void;
}

export function createRateLimitEngine(config: RateLimitEngineConfig = {}): RateLimitEngine {
  const { redisUrl, keyPrefix, redisFailure, onFallback } = config;
  return redisUrl === undefined
    ? new MemoryRateLimitEngine({ keyPrefix })
    : new RedisRateLimitEngine({ redisUrl, keyPrefix, redisFailure, onFallback });
}
