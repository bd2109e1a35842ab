import { RateLimiterMemory } from 'rate-limiter-flexible';
import {
  counterKey,
  counterTtlMs,
  DEFAULT_KEY_PREFIX,
  evaluateLimits,
  validateRequests,
  windowIndex,
  windowKey,
} from './slidingWindow.ts';
import type { CheckOptions, CheckResult, LimitRequest, RateLimitEngine } from './types.ts';

export interface MemoryRateLimitEngineOptions {
  keyPrefix?: string;
  now?: () => number;
}

/**
 * In-process engine. Window counters live in a RateLimiterMemory used as an expiring counter store
 * (`get` / `penalty`). Its expiry runs on the wall clock, which only reclaims memory: window keys
 * carry their index, so a stale counter is never read as a current one.
 */
export class MemoryRateLimitEngine implements RateLimitEngine {
  readonly #counters = new RateLimiterMemory({ points: 0, duration: 0, keyPrefix: '' });
  readonly #keyPrefix: string;
  readonly #now: () => number;
  #pending: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryRateLimitEngineOptions = {}) {
    this.#keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now ?? Date.now;
  }

  check(requests: readonly LimitRequest[], options: CheckOptions = {}): Promise<CheckResult> {
    // The counter store is asynchronous, so checks run one at a time to keep read-decide-increment
    // atomic across concurrent calls.
    const result = this.#pending.then(() => this.#checkNow(requests, options));
    this.#pending = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.#pending;
  }

  async #checkNow(requests: readonly LimitRequest[], { hashTag }: CheckOptions): Promise<CheckResult> {
    validateRequests(requests);
    const nowMs = this.#now();
    const counted = await Promise.all(
      requests.map(async (request) => {
        const counter = counterKey(this.#keyPrefix, request.key, hashTag);
        const window = windowIndex(nowMs, request.durationMs);
        const currentKey = windowKey(counter, window);
        const [current, previous] = await Promise.all([
          this.#count(currentKey),
          this.#count(windowKey(counter, window - 1)),
        ]);
        return { request, current, previous, currentKey };
      }),
    );
    const result = evaluateLimits(counted, nowMs);
    if (result.passed) {
      await Promise.all(
        counted
          .filter(({ request }) => request.cost > 0)
          .map(({ request, currentKey }) =>
            this.#counters.penalty(currentKey, request.cost, {
              customDuration: Math.ceil(counterTtlMs(request.durationMs) / 1000),
            }),
          ),
      );
    }
    return result;
  }

  async #count(key: string): Promise<number> {
    const stored = await this.#counters.get(key);
    return stored?.consumedPoints ?? 0;
  }
}
