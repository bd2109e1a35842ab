import { writeSync } from 'node:fs';

/**
 * Lines wait this long for others to join them in one write: formatting a line is cheap next to
 * a write per line to a pipe. Batched this way a busy server makes a few dozen writes a second.
 */
const BATCH_MS = 25;
/** A batch this large is written once the current turn of the event loop ends, without waiting longer. */
const BATCH_BYTES = 64 * 1024;
/**
 * A batch's buffer: room for a full batch and the rest of the turn that filled it. Buffers of this
 * size are used again once written rather than one allocated (and grown) per batch
 * (docs/decisions/0003-buffered-log-writer.md). A larger batch gets a larger buffer of its own.
 */
const BUFFER_BYTES = 2 * BATCH_BYTES;
/** Written buffers kept for the next batches: one being written and one filling is the usual case. */
const SPARE_BUFFERS = 2;
/** How long a full pipe may hold up the exit (its reader may be gone for good). */
const EXIT_WRITE_PATIENCE_MS = 2000;
/** How long to wait before trying a full pipe again at the exit. */
const FULL_PIPE_RETRY_MS = 10;

const sleepBuffer = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => Atomics.wait(sleepBuffer, 0, 0, ms);

/**
 * What the lines are written to: standard output by default. For a pipe it is a non-blocking
 * stream that writes what the pipe takes at once and queues the rest until the reader catches up.
 */
export interface OutputStream {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  readonly writableLength: number;
  readonly fd?: number | null;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface BufferedOutputOptions {
  stream?: OutputStream;
  /** Bytes held while the reader is slow; lines past it are dropped (and counted) rather than held. */
  maxPendingBytes?: number;
  /** Called once the backlog is written, with the number of lines dropped while it lasted. */
  onDropped?: (lines: number) => void;
}

/**
 * Lines written in batches: a line waits up to BATCH_MS for others, as UTF-8 in a buffer outside
 * the JS heap, so that lines waiting for their batch are nothing the garbage collector copies
 * (docs/decisions/0003-buffered-log-writer.md). A reader that is slow or stopped never holds up
 * the service: what its pipe does not take waits in the stream's queue, up to a bound past which
 * lines are dropped.
 *
 * `flush` waits until every line written before it is handed to the operating system. At the
 * process's exit (process.exit, the end of the event loop, an uncaught exception) the lines still
 * held are written synchronously, waiting at most EXIT_WRITE_PATIENCE_MS for a full pipe, unless
 * earlier ones still wait in the stream's queue (their reader is not reading). A process killed
 * outright (SIGKILL, out of memory) loses the lines it still held.
 */
export class BufferedOutput {
  readonly #stream: OutputStream;
  readonly #maxPendingBytes: number;
  readonly #onDropped: ((lines: number) => void) | undefined;
  /** The pending lines' bytes are its first #pendingBytes; another is taken for each batch, as the stream keeps the last until written. */
  #pending: Buffer | undefined;
  /** Buffers of BUFFER_BYTES the stream has written, for the next batches. */
  readonly #spare: Buffer[] = [];
  #pendingBytes = 0;
  #dropped = 0;
  /** Lets more lines join the pending ones before they are written. */
  #batchTimer: NodeJS.Timeout | undefined;
  /** Writes the pending lines once the current turn of the event loop ends. */
  #endOfTurn: NodeJS.Immediate | undefined;
  /** Batches handed to the stream that it has not written yet. */
  #unwritten = 0;
  /** The stream failed (its reader is gone): nothing more can be written. */
  #closed = false;
  #whenWritten: (() => void)[] = [];

  constructor(options: BufferedOutputOptions = {}) {
    this.#stream = options.stream ?? process.stdout;
    this.#maxPendingBytes = options.maxPendingBytes ?? 16 * 1024 * 1024;
    this.#onDropped = options.onDropped;
    this.#stream.on('error', () => {
      this.#closed = true;
    });
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    if (this.#closed) return;
    // A UTF-16 code unit takes at most three bytes of UTF-8.
    const room = this.#pendingBytes + line.length * 3;
    let pending = this.#pending;
    if (pending === undefined || room > pending.length) {
      const size = Math.max(room, BUFFER_BYTES, (pending?.length ?? 0) * 2);
      pending = (size === BUFFER_BYTES && this.#spare.pop()) || Buffer.allocUnsafe(size);
      this.#pending?.copy(pending, 0, 0, this.#pendingBytes);
      this.#pending = pending;
    }
    const bytes = pending.write(line, this.#pendingBytes, 'utf8');
    // Past the bound the line is not kept: the bytes just written are left to be overwritten.
    if (this.#pendingBytes + this.#stream.writableLength + bytes > this.#maxPendingBytes) {
      this.#dropped++;
      return;
    }
    this.#pendingBytes += bytes;
    if (this.#pendingBytes >= BATCH_BYTES) {
      clearTimeout(this.#batchTimer);
      this.#batchTimer = undefined;
      this.#endOfTurn ??= setImmediate(this.#writePending);
    } else if (this.#endOfTurn === undefined) {
      this.#batchTimer ??= setTimeout(this.#writePending, BATCH_MS).unref();
    }
  }

  /** Calls back once every line written before it is handed to the operating system (or could not be). */
  flush(callback: () => void): void {
    this.#whenWritten.push(callback);
    this.#writePending();
  }

  /** Writes what is held at once, blocking: for the process's exit, when no callback runs anymore. */
  flushSync(): void {
    this.#cancelSchedule();
    const fd = this.#stream.fd;
    if (this.#closed || this.#stream.writableLength > 0 || typeof fd !== 'number') return;
    const chunk = this.#takePending();
    const deadline = Date.now() + EXIT_WRITE_PATIENCE_MS;
    for (let offset = 0; offset < chunk.length; ) {
      try {
        offset += writeSync(fd, chunk, offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) return;
        sleepSync(FULL_PIPE_RETRY_MS);
      }
    }
  }

  #cancelSchedule(): void {
    clearTimeout(this.#batchTimer);
    clearImmediate(this.#endOfTurn);
    this.#batchTimer = undefined;
    this.#endOfTurn = undefined;
  }

  #takePending(): Buffer {
    const chunk = this.#pending?.subarray(0, this.#pendingBytes) ?? Buffer.alloc(0);
    this.#pending = undefined;
    this.#pendingBytes = 0;
    return chunk;
  }

  readonly #writePending = (): void => {
    this.#cancelSchedule();
    if (this.#pendingBytes > 0 && !this.#closed) {
      this.#unwritten++;
      const buffer = this.#pending as Buffer;
      this.#stream.write(this.#takePending(), (error) => {
        if (!error && buffer.length === BUFFER_BYTES && this.#spare.length < SPARE_BUFFERS) this.#spare.push(buffer);
        this.#written();
      });
    } else if (this.#unwritten === 0) {
      this.#written();
    }
  };

  readonly #written = (): void => {
    if (this.#unwritten > 0) this.#unwritten--;
    if (this.#unwritten > 0 || (this.#pendingBytes > 0 && !this.#closed)) return;
    if (this.#dropped > 0) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      this.#onDropped?.(dropped);
    }
    for (const callback of this.#whenWritten.splice(0)) callback();
  };
}
