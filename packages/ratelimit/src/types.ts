export interface LimitRequest {
  /** Already namespaced identifier, e.g. `ws_1:key:key_1:requests`. */
  key: string;
  limit: number;
  durationMs: number;
  /** 0 checks the limit without consuming. */
  cost: number;
}

export interface LimitResult {
  passed: boolean;
  /**
   * 0 when this limit refuses the request. Otherwise what it has left: after the cost when the
   * whole check passed, before it (nothing was counted) when another limit refused the check.
   */
  remaining: number;
  /** End of the current fixed window, unix ms. */
  reset: number;
  limit: number;
  /**
   * Only when this limit refuses the request: milliseconds until a request of the same cost could
   * pass it, counting what has been counted so far (a cost above the limit: until the window ends).
   * With a sliding window that is usually not the window's end.
   */
  retryAfter?: number;
}

export interface CheckResult {
  passed: boolean;
  /** In request order; each says whether that limit alone would have passed. */
  results: LimitResult[];
}

/**
 * How checks are answered while Redis is unreachable. `local`: in this process, from the counts of
 * what it admitted itself, so it never admits more than one window's limit per window. `open`:
 * every check passes, uncounted. `closed`: every check is refused as exceeded.
 */
export type RedisFailureMode = 'local' | 'open' | 'closed';

export interface CheckOptions {
  /**
   * Shard part of every key of the call (e.g. the workspace id; not empty), wrapped in a Redis
   * Cluster hash tag so that all keys of one call live in the same slot. Checks without one share
   * a single slot.
   */
  hashTag?: string;
  /** This check's answer while Redis is unreachable, instead of the engine's. */
  redisFailure?: RedisFailureMode;
}

export interface RateLimitEngine {
  /** All-or-nothing: counters are incremented only when every request passes. */
  check(requests: readonly LimitRequest[], options?: CheckOptions): Promise<CheckResult>;
  /** Resolves when the engine can count across nodes now (Redis answers); in-process it always can. */
  ping(): Promise<void>;
  /** `in-process` without Redis; else the Redis connection's state (`ready` when counting across nodes). */
  readonly connection: string;
  close(): Promise<void>;
}
