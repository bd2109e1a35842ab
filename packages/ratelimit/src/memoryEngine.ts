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

/**
 * The store expires a counter with a Node timer, and Node fires a timer of more than 2^31 - 1 ms
 * at once: a counter kept for longer (windows over about 12 days) would vanish as it is written.
 */
const MAX_TIMER_SECONDS = Math.floor(2_147_483_647 / 1000);

/**
 * How long the store keeps a window's counter, in seconds. One a timer cannot hold is kept
 * without expiry (0): exact counting for windows up to 30 days matters more than reclaiming the
 * memory of their counters, whose keys are few (one per identifier and window).
 */
function counterTtlSeconds(durationMs: number): number {
  const seconds = Math.ceil(counterTtlMs(durationMs) / 1000);
  return seconds > MAX_TIMER_SECONDS ? 0 : seconds;
}

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
              customDuration: counterTtlSeconds(request.durationMs),
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
