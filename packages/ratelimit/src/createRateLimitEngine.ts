import { MemoryRateLimitEngine } from './memoryEngine.ts';
import { type RedisCluster, redisLocationOf } from './redisClient.ts';
import { RedisRateLimitEngine } from './redisEngine.ts';
import type { RateLimitEngine, RedisFailureMode } from './types.ts';

export interface RateLimitEngineConfig {
  /** Without it or a cluster the engine is in-process only, exact for a single server process. */
  redisUrl?: string;
  /** Counts on a Redis Cluster instead of one Redis server. */
  redisCluster?: RedisCluster;
  keyPrefix?: string;
  /** How checks are answered while Redis is unreachable; `local` when omitted. */
  redisFailure?: RedisFailureMode;
  onFallback?: (error: Error) => void;
}

export function createRateLimitEngine(config: RateLimitEngineConfig = {}): RateLimitEngine {
  const { keyPrefix, redisFailure, onFallback } = config;
  const location = redisLocationOf(config);
  return location === undefined
    ? new MemoryRateLimitEngine({ keyPrefix })
    : new RedisRateLimitEngine({ ...location, keyPrefix, redisFailure, onFallback });
}
