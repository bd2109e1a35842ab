import type { CheckResult, LimitRequest, LimitResult } from './types.ts';

/**
 * Sliding window over two clock-aligned fixed windows: the previous window's count is weighted by
 * the share of it that still overlaps the sliding window. The Lua script in redisScript.ts is the
 * same algorithm and must stay in step with this module.
 */
export const DEFAULT_KEY_PREFIX = 'keyplane:ratelimit:';

export interface CountedRequest {
  request: LimitRequest;
  current: number;
  previous: number;
}

export function windowIndex(nowMs: number, durationMs: number): number {
  return Math.floor(nowMs / durationMs);
}

/** The end of the fixed window `nowMs` falls in, unix ms: a limit's `reset`. */
export function windowEnd(nowMs: number, durationMs: number): number {
  return (windowIndex(nowMs, durationMs) + 1) * durationMs;
}

/**
 * The hash tag of checks made without one. A script's keys (and the window keys it derives from
 * them) must share one Redis Cluster slot, so untagged keys share this tag rather than none.
 */
const UNTAGGED = 'untagged';

/**
 * A counter's Redis key: its hash tag in braces, so that every key of one call (and each window of
 * it) hashes to the same Cluster slot. Redis hashes the first `{…}` of a key: a key prefix must
 * hold no braces.
 */
export function counterKey(keyPrefix: string, key: string, hashTag: string | undefined): string {
  return `${keyPrefix}{${hashTag ?? UNTAGGED}}:${key}`;
}

export function windowKey(counter: string, window: number): string {
  return `${counter}:${window}`;
}

/** Long enough for a window's counter to still be read as the previous window. */
export function counterTtlMs(durationMs: number): number {
  return 2 * durationMs;
}

export function validateRequests(requests: readonly LimitRequest[]): void {
  for (const { key, limit, durationMs, cost } of requests) {
    if (key.length === 0) throw new RangeError('Rate limit key must not be empty');
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`Invalid limit ${limit} for ${key}`);
    if (!Number.isSafeInteger(durationMs) || durationMs < 1000) {
      throw new RangeError(`Invalid durationMs ${durationMs} for ${key}: an integer of at least 1000`);
    }
    if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError(`Invalid cost ${cost} for ${key}`);
  }
}

/**
 * Milliseconds from `nowMs` until a request of `cost` could pass a limit that refuses it now, if
 * nothing more were counted: later in this window once enough of the previous window has slid out,
 * or else in the next one, where this window's count becomes the previous. A cost above the limit
 * never passes: until the window ends. The Lua script's retry_after is the same computation.
 */
export function retryAfterMs({ request, current, previous }: CountedRequest, nowMs: number): number {
  const { limit, cost, durationMs } = request;
  const elapsed = nowMs % durationMs;
  if (cost > limit) return durationMs - elapsed;
  if (current + cost <= limit) {
    // Refused for the previous window's weight alone (so previous > 0): wait until enough has slid out.
    return Math.max(1, Math.ceil(durationMs * (1 - (limit - current - cost) / previous) - elapsed));
  }
  const intoNextWindow = current > limit - cost ? durationMs * (1 - (limit - cost) / current) : 0;
  return Math.ceil(durationMs - elapsed + intoNextWindow);
}

export function evaluateLimits(counted: readonly CountedRequest[], nowMs: number): CheckResult {
  const evaluated = counted.map(({ request, current, previous }) => {
    const elapsedShare = (nowMs % request.durationMs) / request.durationMs;
    const effective = current + previous * (1 - elapsedShare);
    return { request, effective, passed: effective + request.cost <= request.limit };
  });
  const passed = evaluated.every((limit) => limit.passed);
  return {
    passed,
    results: evaluated.map(({ request, effective, passed: limitPassed }, index): LimitResult => {
      const { limit } = request;
      const reset = windowEnd(nowMs, request.durationMs);
      if (!limitPassed) {
        return {
          passed: false,
          remaining: 0,
          reset,
          limit,
          retryAfter: retryAfterMs(counted[index] as CountedRequest, nowMs),
        };
      }
      // Its cost is counted only when every limit passed; in a refused check it keeps what it had.
      const used = passed ? effective + request.cost : effective;
      return { passed: true, remaining: Math.floor(limit - used), reset, limit };
    }),
  };
}
