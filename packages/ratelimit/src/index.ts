// Rate limiting, two ways (README.md in this package says why): the exact all-or-nothing engine for
// customers' limits, and rate-limiter-flexible quotas for the service's own.

export { createRateLimitEngine, type RateLimitEngineConfig } from './createRateLimitEngine.ts';
export { MemoryRateLimitEngine, type MemoryRateLimitEngineOptions } from './memoryEngine.ts';
export { createQuotas, type Quota, type QuotaState, type Quotas } from './quotas.ts';
export type { RedisCluster } from './redisClient.ts';
export { RedisRateLimitEngine, type RedisRateLimitEngineOptions } from './redisEngine.ts';
export type {
  CheckOptions,
  CheckResult,
  LimitRequest,
  LimitResult,
  RateLimitEngine,
  RedisFailureMode,
} from './types.ts';
