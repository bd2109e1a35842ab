const NEWLINE = 0x0a;
/** Room for this many bytes of rows when a batch starts: a few dozen events. It doubles as it fills. */
const INITIAL_BYTES = 16 * 1024;
/**
 * Rows are encoded this many at a time: a call into Buffer's native code per row costs more than
 * the garbage collector saves, and so few rows waiting as strings are rarely alive when a
 * scavenge comes (docs/decisions/0007-copy-rows-off-heap.md).
 */
const ROWS_PER_WRITE = 64;

/**
 * Rows of COPY's text format, each ended by its newline, kept as the UTF-8 bytes COPY sends. Held
 * outside the JS heap, a batch waiting for its flush is nothing the garbage collector copies, and
 * writing it builds no text (docs/decisions/0007-copy-rows-off-heap.md). Bytes once added never
 * change, so those already handed to a socket stay valid while rows are added.
 */
export class CopyRows implements Iterable<string> {
  #bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  #size = 0;
  /** Where each encoded row ends, past its newline. */
  #ends: number[] = [];
  /** Rows added since the last encoding, in order after those. */
  #pending: string[] = [];

  static of(rows: Iterable<string>): CopyRows {
    const copyRows = new CopyRows();
    for (const row of rows) copyRows.push(row);
    return copyRows;
  }

  get length(): number {
    return this.#ends.length + this.#pending.length;
  }

  /** Adds a row (without its newline). */
  push(row: string): void {
    if (this.#pending.push(row) === ROWS_PER_WRITE) this.#encodePending();
  }

  /** Rows `start` to `end` (not included) as rows of their own, their bytes copied. */
  slice(start: number, end = this.length): CopyRows {
    this.#encodePending();
    const part = new CopyRows();
    const from = this.#startOf(start);
    part.#ends = this.#ends.slice(start, end).map((rowEnd) => rowEnd - from);
    part.#size = part.#ends.at(-1) ?? 0;
    part.#bytes = Buffer.allocUnsafe(Math.max(part.#size, INITIAL_BYTES));
    this.#bytes.copy(part.#bytes, 0, from, from + part.#size);
    return part;
  }

  /** The bytes of rows `start` to `end` (not included), newlines included; a view, not a copy. */
  bytes(start = 0, end = this.length): Buffer {
    this.#encodePending();
    const last = Math.min(end, this.length) - 1;
    return this.#bytes.subarray(this.#startOf(start), last < start ? this.#startOf(start) : this.#ends[last]);
  }

  /** Each row as text, without its newline (read back: a split batch, an eviction, a test). */
  *[Symbol.iterator](): Iterator<string> {
    this.#encodePending();
    for (let index = 0; index < this.length; index++) {
      yield this.#bytes.toString('utf8', this.#startOf(index), (this.#ends[index] as number) - 1);
    }
  }

  #startOf(index: number): number {
    return index === 0 ? 0 : (this.#ends[index - 1] ?? this.#size);
  }

  #encodePending(): void {
    const rows = this.#pending;
    if (rows.length === 0) return;
    this.#pending = [];
    const text = rows.join('\n');
    // A UTF-16 code unit takes at most three bytes of UTF-8; one more for the last newline.
    const most = this.#size + text.length * 3 + 1;
    if (most > this.#bytes.length) this.#grow(most);
    const written = this.#bytes.write(text, this.#size, 'utf8');
    // Each character one byte, as ids and numbers are: every row's bytes are as many as its characters.
    const measure = written === text.length ? (row: string) => row.length : (row: string) => Buffer.byteLength(row);
    let end = this.#size;
    for (const row of rows) {
      end += measure(row) + 1;
      this.#ends.push(end);
    }
    this.#size += written;
    this.#bytes[this.#size++] = NEWLINE;
  }

  #grow(needed: number): void {
    const bytes = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
    this.#bytes.copy(bytes, 0, 0, this.#size);
    this.#bytes = bytes;
  }
}
