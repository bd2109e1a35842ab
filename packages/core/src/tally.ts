/**
 * Counts by label, kept in plain numbers and read when metrics are scraped: counting costs the hot
 * path one map update and no metrics library. Labels must come from a bounded set (outcome codes),
 * never from a caller's values.
 */
export class Tally {
  readonly #counts = new Map<string, number>();

  add(label: string): void {
    this.#counts.set(label, (this.#counts.get(label) ?? 0) + 1);
  }

  entries(): IterableIterator<[string, number]> {
    return this.#counts.entries();
  }
}
