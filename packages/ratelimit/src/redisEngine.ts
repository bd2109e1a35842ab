import { once } from 'node:events';
import { Redis } from 'ioredis';
import { MemoryRateLimitEngine } from './memoryEngine.ts';
import { RATE_LIMIT_COMMAND, RATE_LIMIT_SCRIPT, type ScriptReply } from './redisScript.ts';
import { counterKey, DEFAULT_KEY_PREFIX, validateRequests, windowIndex } from './slidingWindow.ts';
import type { CheckOptions, CheckResult, LimitRequest, LimitResult, RateLimitEngine } from './types.ts';

export interface RedisRateLimitEngineOptions {
  redisUrl: string;
  keyPrefix?: string;
  /** Replaces the Redis server clock (tests). */
  now?: () => number;
  /** Called for every check answered from memory because Redis is unreachable. */
  onFallback?: (error: Error) => void;
}

const COMMAND_TIMEOUT_MS = 200;
/** Bounds one script's run, during which Redis serves nothing else. */
const MAX_CHECKS_PER_CALL = 100;

/** A counter of one script call: its 1-based position in KEYS and its distinct limit specs. */
interface CounterSpecs {
  position: number;
  specs: { limit: number; durationMs: number; position: number }[];
}

interface PendingCheck {
  requests: readonly LimitRequest[];
  options: CheckOptions;
  resolve(result: CheckResult | Promise<CheckResult>): void;
}

/**
 * Exact across processes sharing one Redis; answers from an in-memory engine (rate-limiter-flexible's
 * insurance pattern) while Redis is not ready or a command fails or times out. Checks of one hash
 * tag made together (by the requests of one wave, see check) go to Redis as one script call, judged
 * in the order they were made: under load a round trip and a command per request cost more than the
 * check.
 */
export class RedisRateLimitEngine implements RateLimitEngine {
  readonly #client: Redis;
  readonly #insurance: MemoryRateLimitEngine;
  readonly #keyPrefix: string;
  readonly #now: (() => number) | undefined;
  readonly #onFallback: (error: Error) => void;
  /** Checks waiting for this turn's script call, by hash tag. */
  readonly #pending = new Map<string, PendingCheck[]>();

  constructor(options: RedisRateLimitEngineOptions) {
    this.#keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now;
    this.#onFallback = options.onFallback ?? (() => {});
    this.#insurance = new MemoryRateLimitEngine({ keyPrefix: this.#keyPrefix, now: options.now });
    this.#client = new Redis(options.redisUrl, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Off: the engine already sends one call per hash tag and wave, and each wave's calls go out
      // from separate ticks, which auto-pipelining would not join anyway; it only added a pipeline
      // object per call (about 3 us of CPU per check in batches of 12).
      enableAutoPipelining: false,
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
    if (requests.length === 0) return { passed: true, results: [] };
    if (this.#client.status !== 'ready') {
      return this.#fallBack(new Error(`Redis connection is ${this.#client.status}`), requests, options);
    }
    const { hashTag } = options;
    return new Promise((resolve) => {
      const check = { requests, options, resolve };
      // Without a hash tag the keys of two checks may live in different Cluster slots: alone.
      if (hashTag === undefined) return void this.#send([check]);
      const waiting = this.#pending.get(hashTag);
      if (waiting) return void waiting.push(check);
      this.#pending.set(hashTag, [check]);
      // Sent once the microtask queue has drained (a tick queued from a microtask runs only then):
      // the requests of one wave, answered together, have by then all made their checks, however
      // many steps in. setImmediate would add a whole turn of a busy event loop (~0.4 ms).
      process.nextTick(() => this.#flush(hashTag));
    });
  }

  #flush(hashTag: string): void {
    const checks = this.#pending.get(hashTag) ?? [];
    this.#pending.delete(hashTag);
    for (let start = 0; start < checks.length; start += MAX_CHECKS_PER_CALL) {
      void this.#send(checks.slice(start, start + MAX_CHECKS_PER_CALL));
    }
  }

  /** One script call for checks that share a hash tag (see redisScript.ts for the arguments). */
  async #send(checks: PendingCheck[]): Promise<void> {
    // By the checks' own keys: every check of one call has the same hash tag, so the full counter
    // key is built once per counter rather than once per check.
    const counters = new Map<string, CounterSpecs>();
    let specCount = 0;
    const specArgs: string[] = [];
    const checkArgs = [String(checks.length)];
    for (const { requests } of checks) {
      checkArgs.push(String(requests.length));
      for (const { key, limit, durationMs, cost } of requests) {
        let counter = counters.get(key);
        if (counter === undefined) {
          counter = { position: counters.size + 1, specs: [] };
          counters.set(key, counter);
        }
        let spec = counter.specs.find((known) => known.limit === limit && known.durationMs === durationMs);
        if (spec === undefined) {
          spec = { limit, durationMs, position: ++specCount };
          counter.specs.push(spec);
          specArgs.push(String(counter.position), String(limit), String(durationMs));
        }
        checkArgs.push(String(spec.position), String(cost));
      }
    }
    const hashTag = checks[0]?.options.hashTag;
    const counterKeys = [...counters.keys()].map((key) => counterKey(this.#keyPrefix, key, hashTag));
    let answers: CheckResult[];
    try {
      const reply = await this.#client.keyplaneRateLimit(
        counterKeys.length,
        ...counterKeys,
        String(this.#now?.() ?? ''),
        String(specCount),
        ...specArgs,
        ...checkArgs,
      );
      answers = readReply(reply, checks);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const { requests, options, resolve } of checks) resolve(this.#fallBack(failure, requests, options));
      return;
    }
    for (const [index, { resolve }] of checks.entries()) resolve(answers[index] as CheckResult);
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

/** Each check's result from the script's reply (see ScriptReply), which must hold exactly them. */
function readReply(reply: ScriptReply, checks: readonly PendingCheck[]): CheckResult[] {
  const judgedAt = reply[0] ?? 0;
  let at = 1;
  const answers = checks.map(({ requests }) => {
    let passed = true;
    const results = requests.map(({ limit, durationMs }): LimitResult => {
      const value = reply[at++] ?? 0;
      const reset = (windowIndex(judgedAt, durationMs) + 1) * durationMs;
      if (value >= 0) return { passed: true, remaining: value, reset, limit };
      passed = false;
      return { passed: false, remaining: 0, reset, limit, retryAfter: -value };
    });
    return { passed, results };
  });
  if (at !== reply.length) {
    throw new Error(`The rate-limit script answered ${reply.length} values where ${at} were due`);
  }
  return answers;
}
