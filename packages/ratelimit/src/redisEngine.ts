import { once } from 'node:events';
import { Redis } from 'ioredis';
import { MemoryRateLimitEngine } from './memoryEngine.ts';
import { RATE_LIMIT_COMMAND, RATE_LIMIT_SCRIPT, type ScriptReply } from './redisScript.ts';
import { counterKey, DEFAULT_KEY_PREFIX, validateRequests } from './slidingWindow.ts';
import type { CheckOptions, CheckResult, LimitRequest, RateLimitEngine } from './types.ts';

export interface RedisRateLimitEngineOptions {
  redisUrl: string;
  keyPrefix?: string;
  /** Replaces the Redis server clock (tests). */
  now?: () => number;
  /** Called for every check answered from memory because Redis is unreachable. */
  onFallback?: (error: Error) => void;
}

const COMMAND_TIMEOUT_MS = 200;

/**
 * Exact across processes sharing one Redis; answers from an in-memory engine (rate-limiter-flexible's
 * insurance pattern) while Redis is not ready or a command fails or times out.
 */
export class RedisRateLimitEngine implements RateLimitEngine {
  readonly #client: Redis;
  readonly #insurance: MemoryRateLimitEngine;
  readonly #keyPrefix: string;
  readonly #now: (() => number) | undefined;
  readonly #onFallback: (error: Error) => void;

  constructor(options: RedisRateLimitEngineOptions) {
    this.#keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now;
    this.#onFallback = options.onFallback ?? (() => {});
    this.#insurance = new MemoryRateLimitEngine({ keyPrefix: this.#keyPrefix, now: options.now });
    this.#client = new Redis(options.redisUrl, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Checks issued in the same tick share one write: under load that is most of them.
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      lazyConnect: false,
    });
    // Without a listener ioredis prints connection errors itself; they reach the caller via onFallback.
    this.#client.on('error', () => {});
    this.#client.defineCommand(RATE_LIMIT_COMMAND, { lua: RATE_LIMIT_SCRIPT });
  }

  /** Resolves once connected, rejects on a connection error; until connected, checks are answered from memory. */
  async ready(): Promise<void> {
    if (this.#client.status !== 'ready') await once(this.#client, 'ready');
  }

  async check(requests: readonly LimitRequest[], options: CheckOptions = {}): Promise<CheckResult> {
    validateRequests(requests);
    if (this.#client.status !== 'ready') {
      return this.#fallBack(new Error(`Redis connection is ${this.#client.status}`), requests, options);
    }
    const keys = requests.map((request) => counterKey(this.#keyPrefix, request.key, options.hashTag));
    const limitArgs = requests.flatMap(({ limit, durationMs, cost }) => [limit, durationMs, cost].map(String));
    let reply: ScriptReply;
    try {
      reply = await this.#client.keyplaneRateLimit(keys.length, ...keys, String(this.#now?.() ?? ''), ...limitArgs);
    } catch (error) {
      return this.#fallBack(error instanceof Error ? error : new Error(String(error)), requests, options);
    }
    const [allPassed, limits] = reply;
    return {
      passed: allPassed === 1,
      results: limits.map(([passed, remaining, reset, limit]) => ({ passed: passed === 1, remaining, reset, limit })),
    };
  }

  async close(): Promise<void> {
    await this.#insurance.close();
    if (this.#client.status === 'ready') {
      await this.#client.quit();
    } else {
      this.#client.disconnect();
    }
  }

  #fallBack(error: Error, requests: readonly LimitRequest[], options: CheckOptions): Promise<CheckResult> {
    this.#onFallback(error);
    return this.#insurance.check(requests, options);
  }
}
