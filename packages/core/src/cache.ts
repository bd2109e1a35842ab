/**
 * A bounded in-process cache whose entries are fresh for `ttlMs`. `generation` guards against a
 * stale write: a reader notes it before going to the database and stores only if no invalidation
 * happened meanwhile.
 */
export class FreshnessCache<TValue> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: TValue; expiresAt: number }>();
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
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: entry.value };
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

  delete(key: string): void {
    this.#generation++;
    this.#entries.delete(key);
  }

  deleteWhere(matches: (value: TValue) => boolean): void {
    this.#generation++;
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
