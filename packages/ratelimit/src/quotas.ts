import { once } from 'node:events';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { closeRedis, connectRedis, type RedisCluster, redisLocationOf } from './redisClient.ts';

/** Where a key's quota stands after a request was counted against it. */
export interface QuotaState {
  limit: number;
  /** Requests left in this window (0 once the request that reached the limit was counted). */
  remaining: number;
  /** Milliseconds until this window ends and the count starts again. */
  resetMs: number;
  /** Whether the request counted is within the limit. */
  passed: boolean;
}

/**
 * A quota per key, counted in fixed windows that start at a key's first request: how many requests
 * a workspace may make per minute, how many analytics queries per hour, how many failed sign-ins an
 * address may try. Refused requests count too, which is what such quotas want (a client that keeps
 * trying does not get in sooner).
 */
export interface Quota {
  /** Counts one request of `key` against `limit` (which may differ from key to key). */
  consume(key: string, limit: number): Promise<QuotaState>;
  /** Where `key` stands, counting nothing. */
  peek(key: string, limit: number): Promise<QuotaState>;
  /**
   * Gives back one request counted against `key`, in the window running now: for a quota of
   * failures that counts every attempt up front and returns those that did not fail. A refund in
   * a window that counted nothing would start it below zero, so a caller refunds only while the
   * window it counted in still runs.
   */
  refund(key: string, limit: number): Promise<void>;
}

export interface Quotas {
  /** A quota named `name` with windows of `durationSeconds`. */
  quota(name: string, durationSeconds: number): Quota;
  /** Resolves once Redis is connected (at once without Redis); until then quotas count in this process. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Quotas on rate-limiter-flexible: `RateLimiterRedis` (on one Redis or a Redis Cluster), shared by
 * every node, with a `RateLimiterMemory` insurance limiter that counts in this process while Redis
 * cannot answer; or memory alone without Redis. One limiter per distinct limit, as
 * rate-limiter-flexible's limits are fixed per limiter: changing a key's limit starts its count afresh.
 */
export function createQuotas(options: { redisUrl?: string; redisCluster?: RedisCluster; keyPrefix?: string }): Quotas {
  const keyPrefix = options.keyPrefix ?? 'keyplane:quota:';
  const location = redisLocationOf(options);
  // Each count is one key, so on a cluster it simply lives on the master of that key's slot.
  const client = location === undefined ? undefined : connectRedis(location);

  return {
    quota(name, durationSeconds) {
      const limiters = new Map<number, RateLimiterMemory | RateLimiterRedis>();
      const limiterFor = (limit: number) => {
        let limiter = limiters.get(limit);
        if (limiter === undefined) {
          const settings = { points: limit, duration: durationSeconds, keyPrefix: `${keyPrefix}${name}:${limit}` };
          limiter =
            client === undefined
              ? new RateLimiterMemory(settings)
              : new RateLimiterRedis({
                  ...settings,
                  storeClient: client,
                  rejectIfRedisNotReady: true,
                  insuranceLimiter: new RateLimiterMemory(settings),
                });
          limiters.set(limit, limiter);
        }
        return limiter;
      };
      const stateOf = (limit: number, result: RateLimiterRes, passed: boolean): QuotaState => ({
        limit,
        remaining: Math.max(0, limit - result.consumedPoints),
        resetMs: Math.max(0, result.msBeforeNext),
        passed,
      });
      return {
        async consume(key, limit) {
          // A limit of 0 refuses everything, and rate-limiter-flexible needs at least one point.
          if (limit === 0) return { limit, remaining: 0, resetMs: durationSeconds * 1000, passed: false };
          try {
            return stateOf(limit, await limiterFor(limit).consume(key), true);
          } catch (refusal) {
            if (refusal instanceof RateLimiterRes) return stateOf(limit, refusal, false);
            throw refusal;
          }
        },
        async peek(key, limit) {
          if (limit === 0) return { limit, remaining: 0, resetMs: durationSeconds * 1000, passed: false };
          const result = await limiterFor(limit).get(key);
          if (result === null) return { limit, remaining: limit, resetMs: 0, passed: true };
          return stateOf(limit, result, result.consumedPoints < limit);
        },
        async refund(key, limit) {
          if (limit === 0) return;
          await limiterFor(limit).reward(key, 1);
        },
      };
    },
    async ready() {
      if (client !== undefined && client.status !== 'ready') await once(client, 'ready');
    },
    async close() {
      if (client !== undefined) await closeRedis(client);
    },
  };
}
