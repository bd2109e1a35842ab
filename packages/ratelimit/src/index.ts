/**
 * Rate-limit engine: sliding window over two clock-aligned fixed windows, all-or-nothing across
 * several limits, and rejected requests consume nothing.
 *
 * Built on rate-limiter-flexible: its RateLimiterMemory is the in-process counter store, and its
 * insurance pattern (a memory limiter answering while the store is down) is how the Redis engine
 * degrades. Its own consume/RateLimiterRedis cannot give these semantics (it counts rejected
 * requests, limits one key per call, and uses windows that start at the first request), so, per the
 * project rule, the Redis side extends it with one Lua script registered through ioredis
 * `defineCommand` rather than a second library.
 */
export { createRateLimitEngine, type RateLimitEngineConfig } from './createRateLimitEngine.ts';
export { MemoryRateLimitEngine, type MemoryRateLimitEngineOptions } from './memoryEngine.ts';
export { RedisRateLimitEngine, type RedisRateLimitEngineOptions } from './redisEngine.ts';
export type { CheckOptions, CheckResult, LimitRequest, LimitResult, RateLimitEngine } from './types.ts';
