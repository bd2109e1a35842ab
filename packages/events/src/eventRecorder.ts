import { type Orm, refusedData } from '@keyplane/db';
import { CopyRows } from './copyRows.ts';
import type { EventSpool } from './eventSpool.ts';
import type { EventTable } from './eventTable.ts';
import { eventTransaction } from './eventTransaction.ts';
import { markWritten } from './spoolMarks.ts';

/** One kind of event: its table, and the tags of its lines in the spool. */
export interface EventStream<TEvent, TTotals> {
  /** One character, unique among streams: a line of the event's row. */
  readonly tag: string;
  readonly table: EventTable<TEvent, TTotals>;
}

export interface EventRecorder<TEvent> {
  /**
   * Records an event. The promise resolves once the event is in the spool, handed to the
   * operating system: await it before answering. It also covers every event recorded before.
   */
  record(event: TEvent): Promise<void>;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Events recorded and not yet written (for the metrics). */
  readonly buffered: number;
  /** Events let go from memory while the database was away: the spool still has them (see record). */
  readonly evicted: number;
}

export interface RecorderOptions {
  flushIntervalMs?: number;
  maxBatch?: number;
  maxBuffered?: number;
  /** A write failed; its events are kept and written with the next flush. */
  onError?: (error: unknown) => void;
  /** The database refused an event's values; that event alone was dropped. */
  onRefused?: (error: unknown) => void;
}

/** A batch of rows with the spool position of each at the same index, in the order they were recorded. */
export interface SpooledBatch<TTotals> {
  rows: CopyRows;
  positions: number[];
  totals: TTotals;
}

export type WriteBatch<TTotals> = (batch: SpooledBatch<TTotals>) => Promise<void>;

/**
 * Writes a table's batch and the marks of its spool positions in one transaction: the batch
 * lands with its marks or not at all, so a replay of the spool never writes it again. The marks
 * go first: a table's last statement may lock rows that requests wait for (keys), held until
 * the commit right after it.
 */
export function writeWithMarks<TTotals>(
  orm: Orm,
  table: EventTable<unknown, TTotals>,
  owner: string,
): WriteBatch<TTotals> {
  return ({ rows, totals, positions }) =>
    eventTransaction(orm, async (tx) => {
      await markWritten(tx.em, owner, positions);
      await table.write(tx, { rows, totals });
    });
}

/** Part of a batch, its totals counted again from its rows (read back: a split or an eviction, both rare). */
function slicedBatch<TEvent, TTotals>(
  table: EventTable<TEvent, TTotals>,
  batch: SpooledBatch<TTotals>,
  start: number,
  end?: number,
): SpooledBatch<TTotals> {
  const rows = batch.rows.slice(start, end);
  const totals = table.noTotals();
  for (const row of rows) {
    const event = table.parse(row);
    if (event !== undefined) table.count(totals, event);
  }
  return { rows, positions: batch.positions.slice(start, end), totals };
}

/**
 * Writes a batch. When the database refuses its values, splits it until the rows it refuses are
 * found, and drops only those, so that one bad event cannot stall every event after it.
 * `settled` hears of every part written or dropped. Another failure stops it: the parts not yet
 * written are answered, in order, with that failure.
 */
export async function writeDroppingRefused<TEvent, TTotals>(
  table: EventTable<TEvent, TTotals>,
  write: WriteBatch<TTotals>,
  batch: SpooledBatch<TTotals>,
  hooks: { settled(positions: number[]): void; refused?: (error: unknown) => void },
): Promise<{ unwritten: SpooledBatch<TTotals>[]; error: unknown } | undefined> {
  const parts = [batch];
  for (let part = parts.shift(); part; part = parts.shift()) {
    try {
      await write(part);
    } catch (error) {
      if (!refusedData(error)) return { unwritten: [part, ...parts], error };
      if (part.rows.length > 1) {
        const middle = Math.ceil(part.rows.length / 2);
        parts.unshift(slicedBatch(table, part, 0, middle), slicedBatch(table, part, middle));
        continue;
      }
      hooks.refused?.(error);
    }
    hooks.settled(part.positions);
  }
  return undefined;
}

/**
 * Spools each event before its answer and writes them to PostgreSQL in batches on a timer, off
 * the request path. Each event is made its row once: the spool's line and the batch's COPY row are
 * the same text, the batch keeping it as bytes off the heap, and the batch's totals grow as its
 * events arrive (docs/decisions/0014-events-spooled-then-copied-in-batches.md). A batch that fails
 * is put back in front of the buffer and retried with the next flush, unless the database refused
 * its values (see writeDroppingRefused).
 * The spool hears which events are settled, and deletes its files once all of theirs are.
 */
export function createEventRecorder<TEvent, TTotals>(
  spool: EventSpool,
  stream: EventStream<TEvent, TTotals>,
  write: WriteBatch<TTotals>,
  options: RecorderOptions = {},
): EventRecorder<TEvent> {
  const { table, tag } = stream;
  // Large batches: a batch's statement has a fixed cost beyond its rows (parse, plan, commit),
  // which its events share (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
  const maxBatch = options.maxBatch ?? 5000;
  const maxBuffered = options.maxBuffered ?? 100_000;
  /** The batches waiting to be written, oldest first; events are added to the last until it is full. */
  let batches: SpooledBatch<TTotals>[] = [];
  /** Their rows. */
  let buffered = 0;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let evicted = 0;
  const hooks = { settled: (settled: number[]) => spool.settle(settled), refused: options.onRefused };

  // Writes the batches there are when it starts, and no more: chasing what arrives during its
  // writes would turn a busy node's flush into a stream of small transactions, each paying for the
  // statement and the commit again.
  const drain = async (): Promise<void> => {
    const due = batches;
    batches = [];
    buffered = 0;
    for (const [index, batch] of due.entries()) {
      const failed = await writeDroppingRefused(table, write, batch, hooks);
      if (failed) {
        const unwritten = [...failed.unwritten, ...due.slice(index + 1)];
        batches = [...unwritten, ...batches];
        for (const { rows } of unwritten) buffered += rows.length;
        options.onError?.(failed.error);
        return;
      }
    }
  };

  /** Under a sustained database outage, lets the oldest tenth go, so a full buffer does not cost a shift per request. */
  const evictOldest = () => {
    let dropping = Math.max(1, Math.ceil(maxBuffered / 10));
    while (dropping > 0 && batches[0]) {
      const oldest = batches[0];
      const count = Math.min(dropping, oldest.rows.length);
      spool.evict(oldest.positions.slice(0, count));
      if (count === oldest.rows.length) batches.shift();
      else batches[0] = slicedBatch(table, oldest, count);
      dropping -= count;
      buffered -= count;
      evicted += count;
    }
  };

  const flush = (): Promise<void> => {
    if (!running) {
      running = drain().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The running drain does not see what was recorded after it started: one more follows it.
    queued ??= running.then(() => {
      queued = undefined;
      return flush();
    });
    return queued;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 1000);
  timer.unref();

  return {
    record(event) {
      // Keep the newest events in memory rather than grow without bound. The spool still has
      // those let go: it reads them back later.
      if (buffered >= maxBuffered) evictOldest();
      const row = table.row(event);
      let batch = batches.at(-1);
      if (!batch || batch.rows.length >= maxBatch) {
        batch = { rows: new CopyRows(), positions: [], totals: table.noTotals() };
        batches.push(batch);
      }
      batch.rows.push(row);
      batch.positions.push(spool.append(tag, row));
      table.count(batch.totals, event);
      buffered++;
      return spool.written();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    get buffered() {
      return buffered;
    },
    get evicted() {
      return evicted;
    },
  };
}
