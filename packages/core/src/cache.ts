/** A value, or a promise of one: what a function answers that has its answer at hand on its hot path. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A bounded in-process cache whose entries are fresh for `ttlMs`. `generation` guards against a
 * stale write: a reader notes it before going to the database and stores only if no invalidation
 * happened meanwhile. `lookUp` does that for the caller and lets concurrent misses of one key share
 * one read, so an expiring hot key (or a flood of one garbage key) costs the database one query.
 * `counts` are read by the metrics endpoint (docs/operations.md, Metrics).
 */
export class FreshnessCache<TValue> {
  /** Look-ups answered from the cache (or by a read already under way), and look-ups that read the source; invalidations. */
  readonly counts = { hits: 0, misses: 0, invalidations: 0 };
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: TValue; expiresAt: number }>();
  readonly #loading = new Map<string, { generation: number; value: Promise<TValue> }>();
  #generation = 0;

  constructor(options: { ttlMs: number; maxEntries: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  get generation(): number {
    return this.#generation;
  }

  /** The value if present and fresh; `undefined` means "ask the source". */
  get(key: string): { value: TValue } | undefined {
    const entry = this.#freshEntry(key);
    return entry && { value: entry.value };
  }

  /** The key's entry if it is fresh; a stale one is dropped. */
  #freshEntry(key: string): { value: TValue; expiresAt: number } | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /**
   * The fresh value, else what `read` finds (stored for next time). A read already under way for
   * the key is shared, unless an invalidation came since it began: its answer may be the old state.
   * A fresh value comes at once, not as a promise: a caller on a hot path then awaits (and waits a
   * microtask turn) only when the source has to be read.
   */
  lookUp(key: string, read: () => Promise<TValue>): MaybePromise<TValue> {
    // Not through `get`: its wrapper object would be made twice on every verification.
    const entry = this.#freshEntry(key);
    if (entry) {
      this.counts.hits++;
      return entry.value;
    }
    const underWay = this.#loading.get(key);
    if (underWay && underWay.generation === this.#generation) {
      this.counts.hits++;
      return underWay.value;
    }
    this.counts.misses++;
    const generation = this.#generation;
    const value = read()
      .then((found) => {
        this.set(key, found, generation);
        return found;
      })
      .finally(() => {
        if (this.#loading.get(key)?.value === value) this.#loading.delete(key);
      });
    this.#loading.set(key, { generation, value });
    return value;
  }

  /** Stores the value unless an invalidation happened since `generation` was read. */
  set(key: string, value: TValue, generation: number): void {
    if (generation !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: this.#now() + this.#ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }

  delete(key: string): void {
    this.counts.invalidations++;
    this.#generation++;
    this.#entries.delete(key);
  }

  deleteWhere(matches: (value: TValue) => boolean): void {
    this.counts.invalidations++;
    this.#generation++;
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.counts.invalidations++;
    this.#generation++;
    this.#entries.clear();
  }
}
