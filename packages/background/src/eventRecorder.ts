import { type EventTransaction, eventTransaction, markWritten, type Orm, refusedData } from '@keyplane/db';
import type { EventSpool } from './eventSpool.ts';

/** One kind of event: how its batches are written, and the tag of its lines in the spool. */
export interface EventStream<TEvent> {
  /** One character, unique among streams. */
  readonly tag: string;
  /** Writes one batch inside the caller's transaction. */
  write(tx: EventTransaction, batch: TEvent[]): Promise<void>;
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

/** Events with their spool positions, in the order they were recorded. */
export interface SpooledBatch<TEvent> {
  events: TEvent[];
  positions: number[];
}

export type WriteBatch<TEvent> = (batch: SpooledBatch<TEvent>) => Promise<void>;

/**
 * Writes a stream's batch and the marks of its spool positions in one transaction: the batch
 * lands with its marks or not at all, so a replay of the spool never writes it again. The marks
 * go first: a stream's last statement may lock rows that requests wait for (keys), held until
 * the commit right after it.
 */
export function writeWithMarks<TEvent>(orm: Orm, stream: EventStream<TEvent>, owner: string): WriteBatch<TEvent> {
  return ({ events, positions }) =>
    eventTransaction(orm, async (tx) => {
      await markWritten(tx.em, owner, positions);
      await stream.write(tx, events);
    });
}

/**
 * Writes a batch. When the database refuses its values, splits it until the events it refuses are
 * found, and drops only those, so that one bad event cannot stall every event after it.
 * `settled` hears of every part written or dropped. Another failure stops it: the parts not yet
 * written are answered, in order, with that failure.
 */
export async function writeDroppingRefused<TEvent>(
  write: WriteBatch<TEvent>,
  batch: SpooledBatch<TEvent>,
  hooks: { settled(positions: number[]): void; refused?: (error: unknown) => void },
): Promise<{ unwritten: SpooledBatch<TEvent>; error: unknown } | undefined> {
  const parts = [batch];
  for (let part = parts.shift(); part; part = parts.shift()) {
    try {
      await write(part);
    } catch (error) {
      if (!refusedData(error)) {
        const rest = [part, ...parts];
        return {
          unwritten: {
            events: rest.flatMap(({ events }) => events),
            positions: rest.flatMap(({ positions }) => positions),
          },
          error,
        };
      }
      if (part.events.length > 1) {
        const middle = Math.ceil(part.events.length / 2);
        parts.unshift(sliced(part, 0, middle), sliced(part, middle));
        continue;
      }
      hooks.refused?.(error);
    }
    hooks.settled(part.positions);
  }
  return undefined;
}

function sliced<TEvent>(batch: SpooledBatch<TEvent>, start: number, end?: number): SpooledBatch<TEvent> {
  return { events: batch.events.slice(start, end), positions: batch.positions.slice(start, end) };
}

/**
 * Spools each event before its answer and writes them to PostgreSQL in batches on a timer, off
 * the request path. A batch that fails is put back in front of the buffer and retried with the
 * next flush, unless the database refused its values (see writeDroppingRefused). The spool
 * hears which events are settled, and deletes its files once all of theirs are.
 */
export function createEventRecorder<TEvent>(
  spool: EventSpool,
  tag: string,
  write: WriteBatch<TEvent>,
  options: RecorderOptions = {},
): EventRecorder<TEvent> {
  // A batch's statement costs PostgreSQL ~1.7 ms beyond its rows (parse, plan, commit): at 1000
  // events that was a seventh of an event's cost, at 5000 it is a few percent.
  const maxBatch = options.maxBatch ?? 5000;
  const maxBuffered = options.maxBuffered ?? 100_000;
  // Each event's spool position at the same index, rather than a pair per event.
  let events: TEvent[] = [];
  let positions: number[] = [];
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let evicted = 0;
  const hooks = { settled: (settled: number[]) => spool.settle(settled), refused: options.onRefused };

  // Writes what is buffered when it starts, and no more: chasing what arrives during its writes
  // would turn a busy node's flush into a stream of small transactions, each paying for the
  // statement and the commit again.
  const drain = async (): Promise<void> => {
    let due = events.length;
    while (due > 0 && events.length > 0) {
      const size = Math.min(due, maxBatch);
      const batch = { events: events.slice(0, size), positions: positions.slice(0, size) };
      events = events.slice(size);
      positions = positions.slice(size);
      due -= size;
      const failed = await writeDroppingRefused(write, batch, hooks);
      if (failed) {
        events = [...failed.unwritten.events, ...events];
        positions = [...failed.unwritten.positions, ...positions];
        options.onError?.(failed.error);
        return;
      }
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
      // Under a sustained database outage, keep the newest events in memory rather than grow
      // without bound; drop the oldest tenth at once, so a full buffer does not cost a shift of
      // every event per request. The spool still has those: it reads them back later.
      if (events.length >= maxBuffered) {
        const dropped = Math.max(1, Math.ceil(maxBuffered / 10));
        events.splice(0, dropped);
        spool.evict(positions.splice(0, dropped));
        evicted += dropped;
      }
      events.push(event);
      positions.push(spool.append(tag, JSON.stringify(event)));
      return spool.written();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
    get buffered() {
      return events.length;
    },
    get evicted() {
      return evicted;
    },
  };
}
