import { once } from 'node:events';
import { type CountedWindow, MemoryRateLimitEngine } from './memoryEngine.ts';
import {
  closeRedis,
  connectRedis,
  pingRedis,
  type RedisClient,
  type RedisLocation,
  withinCommandTimeout,
} from './redisClient.ts';
import {
  RATE_LIMIT_COMMAND,
  RATE_LIMIT_SCRIPT,
  type ScriptReply,
  WRITE_BACK_COMMAND,
  WRITE_BACK_SCRIPT,
} from './redisScript.ts';
import { counterKey, counterTtlMs, DEFAULT_KEY_PREFIX, validateRequests, windowEnd } from './slidingWindow.ts';
import type {
  CheckOptions,
  CheckResult,
  LimitRequest,
  LimitResult,
  RateLimitEngine,
  RedisFailureMode,
} from './types.ts';

export type RedisRateLimitEngineOptions = RedisLocation & {
  keyPrefix?: string;
  /** Replaces the Redis server clock (tests). */
  now?: () => number;
  /** How checks are answered while Redis is unreachable; `local` when omitted. */
  redisFailure?: RedisFailureMode;
  /** Called for every check answered without Redis because it is unreachable. */
  onFallback?: (error: Error) => void;
};

/** Bounds one script's run, during which Redis serves nothing else. */
const MAX_CHECKS_PER_CALL = 100;
/** Likewise for a write-back call. */
const MAX_WINDOWS_PER_WRITE_BACK = 1000;
/**
 * retryAfter of a check refused because Redis is unreachable (`closed`): Redis may answer again at
 * any moment, and a client told to wait out the window would wait far longer than most outages.
 */
const UNREACHABLE_RETRY_AFTER_MS = 1000;

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
 * Exact across processes sharing one Redis or one Redis Cluster. Checks of one hash tag made
 * together (by the requests of one wave, see check) go to Redis as one script call, judged in the
 * order they were made: under load a round trip and a command per request cost more than the check.
 * Every key of such a call carries the hash tag, so on a cluster the call goes whole to the one
 * master that serves its slot (docs/architecture.md, Redis Cluster).
 *
 * While Redis is not ready, or a command fails or times out, each check is answered as its
 * RedisFailureMode says. Unless that is `open`, this process also counts in memory what it admits
 * through Redis, as it admits it: without Redis, `local` checks go on from this process's own count
 * of the window, not from zero, and Redis gets the counts back when it returns (see #writeBack).
 * All of this is per hash tag: on a cluster, a master that is down leaves the tags of the other
 * masters' slots judged by Redis, exactly.
 */
export class RedisRateLimitEngine implements RateLimitEngine {
  readonly #client: RedisClient;
  /** What this process admitted itself, through Redis or without it; judges `local` checks without Redis. */
  readonly #ownCounts: MemoryRateLimitEngine;
  readonly #keyPrefix: string;
  readonly #now: (() => number) | undefined;
  readonly #redisFailure: RedisFailureMode;
  readonly #onFallback: (error: Error) => void;
  /** Checks waiting for this turn's script call, by hash tag (checks without one share a slot too). */
  readonly #pending = new Map<string | undefined, PendingCheck[]>();
  /** The Redis clock minus this process's at the last reply: own counts use Redis's windows. */
  #redisClockOffsetMs = 0;
  /** Hash tags whose own counts Redis may lack: they are written back before the tag's next call. */
  readonly #writeBackDue = new Set<string | undefined>();
  /** Every hash tag counted here is due (Redis connected anew: it may have restarted empty). */
  #everyWriteBackDue = false;
  readonly #writingBack = new Map<string | undefined, Promise<void>>();

  constructor(options: RedisRateLimitEngineOptions) {
    this.#keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.#now = options.now;
    this.#redisFailure = options.redisFailure ?? 'local';
    this.#onFallback = options.onFallback ?? (() => {});
    this.#ownCounts = new MemoryRateLimitEngine({ keyPrefix: this.#keyPrefix, now: () => this.#clock() });
    this.#client = connectRedis(options);
    // Also when no check noticed that Redis was gone: it may have restarted empty. Likewise a
    // cluster master whose connection ended (`-node`): the cluster connection stays ready meanwhile.
    const everyWriteBackDue = () => {
      this.#everyWriteBackDue = true;
    };
    this.#client.on('ready', everyWriteBackDue);
    this.#client.on('-node', everyWriteBackDue);
    this.#client.defineCommand(RATE_LIMIT_COMMAND, { lua: RATE_LIMIT_SCRIPT });
    this.#client.defineCommand(WRITE_BACK_COMMAND, { lua: WRITE_BACK_SCRIPT });
  }

  /** Resolves once connected, rejects on a connection error; until connected, checks are answered without Redis. */
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
      const waiting = this.#pending.get(hashTag);
      if (waiting) return void waiting.push(check);
      this.#pending.set(hashTag, [check]);
      // Sent once the microtask queue has drained (a tick queued from a microtask runs only then):
      // the requests of one wave, answered together, have by then all made their checks, however
      // many steps in. setImmediate would add a whole turn of a busy event loop to every check
      // (docs/decisions/0009-own-sliding-window-script.md).
      process.nextTick(() => this.#flush(hashTag));
    });
  }

  #flush(hashTag: string | undefined): void {
    const checks = this.#pending.get(hashTag) ?? [];
    this.#pending.delete(hashTag);
    for (let start = 0; start < checks.length; start += MAX_CHECKS_PER_CALL) {
      void this.#send(checks.slice(start, start + MAX_CHECKS_PER_CALL));
    }
  }

  /** One script call for checks that share a hash tag (see redisScript.ts for the arguments). */
  async #send(checks: PendingCheck[]): Promise<void> {
    const hashTag = checks[0]?.options.hashTag;
    try {
      while (this.#isWriteBackDue(hashTag)) await this.#writeBack(hashTag);
    } catch (error) {
      return this.#fallBackAll(checks, error);
    }
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
    const counterKeys = [...counters.keys()].map((key) => counterKey(this.#keyPrefix, key, hashTag));
    let reply: ScriptReply;
    let answers: CheckResult[];
    try {
      reply = await withinCommandTimeout(
        this.#client.keyplaneRateLimit(
          counterKeys.length,
          ...counterKeys,
          String(this.#now?.() ?? ''),
          String(specCount),
          ...specArgs,
          ...checkArgs,
        ),
      );
      answers = readReply(reply, checks);
    } catch (error) {
      return this.#fallBackAll(checks, error);
    }
    const judgedAt = reply[0] ?? 0;
    if (this.#now === undefined) this.#redisClockOffsetMs = judgedAt - Date.now();
    for (const [index, { requests, options, resolve }] of checks.entries()) {
      const answer = answers[index] as CheckResult;
      if (answer.passed && this.#failureMode(options) !== 'open') this.#ownCounts.record(requests, options, judgedAt);
      resolve(answer);
    }
  }

  async ping(): Promise<void> {
    await pingRedis(this.#client);
  }

  get connection(): string {
    return this.#client.status;
  }

  async close(): Promise<void> {
    await this.#ownCounts.close();
    await closeRedis(this.#client);
  }

  #isWriteBackDue(hashTag: string | undefined): boolean {
    if (this.#everyWriteBackDue) {
      this.#everyWriteBackDue = false;
      for (const counted of this.#ownCounts.hashTags()) this.#writeBackDue.add(counted);
    }
    return this.#writeBackDue.has(hashTag) || this.#writingBack.has(hashTag);
  }

  /**
   * Writes this process's own counts of one hash tag's windows that still weigh back into Redis,
   * raising lower counts (see WRITE_BACK_SCRIPT): after it admitted without Redis (`local`), and on
   * every connection, as a Redis that restarted without persistence would otherwise grant a fresh
   * window. The tag's checks wait for it (concurrent ones share it), so none is judged by a Redis
   * that lacks them; other tags' checks do not, as their slots may be served by a master that is up.
   */
  #writeBack(hashTag: string | undefined): Promise<void> {
    let writing = this.#writingBack.get(hashTag);
    if (writing === undefined) {
      writing = this.#writeBackNow(hashTag).finally(() => this.#writingBack.delete(hashTag));
      this.#writingBack.set(hashTag, writing);
    }
    return writing;
  }

  async #writeBackNow(hashTag: string | undefined): Promise<void> {
    // Cleared first: what is admitted without Redis from now on is due again.
    this.#writeBackDue.delete(hashTag);
    const calls = writeBackCalls(this.#ownCounts.weighingWindows(hashTag, this.#clock()));
    try {
      await Promise.all(
        calls.map((windows) =>
          withinCommandTimeout(
            this.#client.keyplaneWriteBack(
              windows.length,
              ...windows.map(({ key }) => key),
              ...windows.flatMap(({ count, durationMs }) => [String(count), String(counterTtlMs(durationMs))]),
            ),
          ),
        ),
      );
    } catch (error) {
      this.#writeBackDue.add(hashTag);
      throw error;
    }
  }

  #fallBackAll(checks: readonly PendingCheck[], error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    for (const { requests, options, resolve } of checks) resolve(this.#fallBack(failure, requests, options));
  }

  #fallBack(error: Error, requests: readonly LimitRequest[], options: CheckOptions): Promise<CheckResult> {
    this.#onFallback(error);
    switch (this.#failureMode(options)) {
      case 'open':
        return Promise.resolve(passedUncounted(requests, this.#clock()));
      case 'closed':
        return Promise.resolve(refusedUnreachable(requests, this.#clock()));
      case 'local':
        this.#writeBackDue.add(options.hashTag);
        return this.#ownCounts.check(requests, options);
    }
  }

  #failureMode(options: CheckOptions): RedisFailureMode {
    return options.redisFailure ?? this.#redisFailure;
  }

  /** Redis's time as this process last saw it (or the injected clock). */
  #clock(): number {
    return this.#now?.() ?? Date.now() + this.#redisClockOffsetMs;
  }
}

/** One hash tag's windows (one Cluster slot, see counterKey) in write-back calls of bounded size. */
function writeBackCalls(windows: Iterable<CountedWindow>): CountedWindow[][] {
  const calls: CountedWindow[][] = [];
  for (const window of windows) {
    const call = calls.at(-1);
    if (call === undefined || call.length === MAX_WINDOWS_PER_WRITE_BACK) {
      calls.push([window]);
    } else {
      call.push(window);
    }
  }
  return calls;
}

/** `open`: every limit passes and nothing is counted, so each has its whole limit left. */
function passedUncounted(requests: readonly LimitRequest[], nowMs: number): CheckResult {
  return {
    passed: true,
    results: requests.map(({ limit, durationMs }) => ({
      passed: true,
      remaining: limit,
      reset: windowEnd(nowMs, durationMs),
      limit,
    })),
  };
}

/** `closed`: every limit refuses, as exceeded. */
function refusedUnreachable(requests: readonly LimitRequest[], nowMs: number): CheckResult {
  return {
    passed: false,
    results: requests.map(({ limit, durationMs }) => ({
      passed: false,
      remaining: 0,
      reset: windowEnd(nowMs, durationMs),
      limit,
      retryAfter: UNREACHABLE_RETRY_AFTER_MS,
    })),
  };
}

/** Each check's result from the script's reply (see ScriptReply), which must hold exactly them. */
function readReply(reply: ScriptReply, checks: readonly PendingCheck[]): CheckResult[] {
  const judgedAt = reply[0] ?? 0;
  let at = 1;
  const answers = checks.map(({ requests }) => {
    let passed = true;
    const results = requests.map(({ limit, durationMs }): LimitResult => {
      const value = reply[at++] ?? 0;
      const reset = windowEnd(judgedAt, durationMs);
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
