import {
  counterKey,
  DEFAULT_KEY_PREFIX,
  evaluateLimits,
  validateRequests,
  windowIndex,
  windowKey,
} from './slidingWindow.ts';
import type { CheckOptions, CheckResult, LimitRequest, RateLimitEngine } from './types.ts';

/** One fixed window's count, kept while it still weighs in the sliding window. */
interface WindowCount {
  durationMs: number;
  count: number;
  /** The end of the window after it: from then on it is neither the current nor the previous window. */
  weighsUntil: number;
}

/** A window's count as Redis would hold it. */
export interface CountedWindow {
  /** The window's key, as the Redis script names it. */
  key: string;
  durationMs: number;
  count: number;
}

/**
 * How often, on the engine's clock, windows that no longer weigh are dropped. Only memory is at
 * stake (a window is found by its index, so a stale count is never read as a current one), and a
 * sweep visits every window kept.
 */
const PRUNE_INTERVAL_MS = 10_000;

export interface MemoryRateLimitEngineOptions {
  keyPrefix?: string;
  now?: () => number;
}

/**
 * In-process engine: exact for one process. Window counts live in plain maps, read and written
 * synchronously, so a check is atomic without queueing, and counting admissions made elsewhere (see
 * `record`) costs a few map lookups: by hash tag, then key, then window index, so that no key string
 * is built or hashed on the way (building one cost ten times as much).
 */
export class MemoryRateLimitEngine implements RateLimitEngine {
  readonly #counters = new Map<string | undefined, Map<string, Map<number, WindowCount>>>();
  readonly #keyPrefix: string;
  readonly #now: () => number;
  #nextPruneAt = 0;

  constructor(options: MemoryRateLimitEngineOptions = {}) {
    this.#keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now ?? Date.now;
  }

  async check(requests: readonly LimitRequest[], { hashTag }: CheckOptions = {}): Promise<CheckResult> {
    validateRequests(requests);
    const nowMs = this.#now();
    const byKey = this.#counters.get(hashTag);
    const counted = requests.map((request) => {
      const windows = byKey?.get(request.key);
      const window = windowIndex(nowMs, request.durationMs);
      return {
        request,
        current: windows?.get(window)?.count ?? 0,
        previous: windows?.get(window - 1)?.count ?? 0,
      };
    });
    const result = evaluateLimits(counted, nowMs);
    if (result.passed) this.record(requests, { hashTag }, nowMs);
    return result;
  }

  /** Counts the costs of `requests` as admitted at `nowMs`, in the windows of that time. */
  record(requests: readonly LimitRequest[], { hashTag }: CheckOptions, nowMs: number): void {
    this.#prune(nowMs);
    let byKey = this.#counters.get(hashTag);
    for (const { key, durationMs, cost } of requests) {
      if (cost === 0) continue;
      if (byKey === undefined) {
        byKey = new Map();
        this.#counters.set(hashTag, byKey);
      }
      let windows = byKey.get(key);
      if (windows === undefined) {
        windows = new Map();
        byKey.set(key, windows);
      }
      const window = windowIndex(nowMs, durationMs);
      const counted = windows.get(window);
      if (counted === undefined) {
        windows.set(window, { durationMs, count: cost, weighsUntil: (window + 2) * durationMs });
      } else {
        counted.count += cost;
      }
    }
  }

  /** The hash tags of the windows counted here. */
  hashTags(): Iterable<string | undefined> {
    return this.#counters.keys();
  }

  /** The windows of one hash tag counted here that still weigh at `nowMs`. */
  *weighingWindows(hashTag: string | undefined, nowMs: number): Generator<CountedWindow> {
    for (const [key, windows] of this.#counters.get(hashTag) ?? []) {
      const counter = counterKey(this.#keyPrefix, key, hashTag);
      for (const [window, { durationMs, count, weighsUntil }] of windows) {
        if (weighsUntil > nowMs) yield { key: windowKey(counter, window), durationMs, count };
      }
    }
  }

  async ping(): Promise<void> {}

  get connection(): string {
    return 'in-process';
  }

  async close(): Promise<void> {
    this.#counters.clear();
  }

  #prune(nowMs: number): void {
    if (nowMs < this.#nextPruneAt) return;
    this.#nextPruneAt = nowMs + PRUNE_INTERVAL_MS;
    for (const [hashTag, byKey] of this.#counters) {
      for (const [key, windows] of byKey) {
        for (const [window, { weighsUntil }] of windows) {
          if (weighsUntil <= nowMs) windows.delete(window);
        }
        if (windows.size === 0) byKey.delete(key);
      }
      if (byKey.size === 0) this.#counters.delete(hashTag);
    }
  }
}
