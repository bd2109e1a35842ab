import type { Orm } from '@keyplane/db';
import { type EventStream, writeDroppingRefused, writeWithMarks } from './eventRecorder.ts';
import { type EventSpool, type LineReader, readSegment, type SpoolSegment } from './eventSpool.ts';
import { rowsOf } from './eventTable.ts';
import { forgetMarks, forgetMarksBefore, markedRuns } from './spoolMarks.ts';

export interface SpoolReplayOptions {
  /** How often to look for the spools of dead processes. */
  intervalMs?: number;
  maxBatch?: number;
  /** A pass failed (the database is away, say); the next one tries again. */
  onError?: (error: unknown) => void;
  /** The database refused an event's values; that event alone was dropped. */
  onRefused?: (error: unknown) => void;
  /** Lines of a segment could not be read (damaged, or of no known stream) and were skipped. */
  onDamaged?: (segment: SpoolSegment, lines: number) => void;
  /** A dead process's spool was replayed: `events` of it were not yet in PostgreSQL. */
  onReplayed?: (replayed: { owner: string; events: number }) => void;
}

export interface SpoolReplay {
  /** Runs a pass now, after any under way. */
  replayNow(): Promise<void>;
  /** Reads back what this process evicted, closes its spool and forgets its marks once no file of it is left. */
  close(): Promise<void>;
}

/** Marks a crash left behind are kept this long: a spool left unreplayed longer may count events twice. */
const MARK_RETENTION_MS = 7 * 86_400_000;
const MARK_SWEEP_INTERVAL_MS = 3_600_000;
/** What a line of a stream this process does not know reads as: a later version's, skipped without ending its chunk. */
const UNKNOWN_STREAM = Symbol('a line of no known stream');
/** A tag is a letter: a line whose first character is not (zeros a crash left, say) is damaged. */
const TAG = /^[A-Za-z]$/;

/**
 * Writes to PostgreSQL, exactly once, the spooled events that are not there yet: those of dead
 * processes that shared the spool directory (at start-up and every `intervalMs`), and those this
 * process dropped from memory during a database outage. A segment's events are written with the
 * marks of their positions, in one transaction per batch; what is marked already is skipped, so
 * a crash at any point of a replay, or between a batch's commit and its file's removal, counts
 * nothing twice. A segment is deleted once all of it is written, and its marks after that.
 */
export function startSpoolReplay(
  orm: Orm,
  spool: EventSpool,
  streams: readonly EventStream<unknown, unknown>[],
  options: SpoolReplayOptions = {},
): SpoolReplay {
  const maxBatch = options.maxBatch ?? 5000;
  const byTag = new Map(streams.map((stream) => [stream.tag, stream]));
  const read: LineReader = (tag, text) => {
    const stream = byTag.get(tag);
    if (!stream) return TAG.test(tag) ? UNKNOWN_STREAM : undefined;
    return stream.table.parse(text);
  };
  let prunedBelow = 0;
  let lastSweep = 0;

  /** Writes the lines of a segment that are not marked yet; answers how many there were. */
  const replaySegment = async (segment: SpoolSegment): Promise<number> => {
    const { lines, damaged } = readSegment(segment.path, read);
    const first = lines[0];
    const last = lines.at(-1);
    const marked = first && last ? await markedRuns(orm.em.fork(), segment.owner, first.position, last.position) : [];
    const pending = new Map<EventStream<unknown, unknown>, { events: unknown[]; positions: number[] }>();
    let unknown = 0;
    let markIndex = 0;
    for (const { position, tag, event } of lines) {
      while ((marked[markIndex]?.[1] ?? Number.POSITIVE_INFINITY) < position) markIndex++;
      if ((marked[markIndex]?.[0] ?? Number.POSITIVE_INFINITY) <= position) continue;
      const stream = byTag.get(tag);
      if (!stream) {
        unknown++;
        continue;
      }
      const batch = pending.get(stream) ?? { events: [], positions: [] };
      pending.set(stream, batch);
      batch.events.push(event);
      batch.positions.push(position);
    }
    if (damaged + unknown > 0) options.onDamaged?.(segment, damaged + unknown);
    let replayed = 0;
    for (const [{ table }, { events, positions }] of pending) {
      const write = writeWithMarks(orm, table, segment.owner);
      for (let start = 0; start < events.length; start += maxBatch) {
        const batch = {
          ...rowsOf(table, events.slice(start, start + maxBatch)),
          positions: positions.slice(start, start + maxBatch),
        };
        const failed = await writeDroppingRefused(table, write, batch, {
          settled: (settled) => {
            replayed += settled.length;
          },
          refused: options.onRefused,
        });
        // What was written is marked: the next pass goes on from there.
        if (failed) throw failed.error;
      }
    }
    return replayed;
  };

  const readBack = async () => {
    for (const segment of spool.segmentsToReadBack()) {
      await replaySegment(segment);
      spool.remove(segment);
    }
  };

  const pass = async () => {
    await readBack();
    for (const orphan of await spool.adoptOrphans()) {
      let events = 0;
      for (const segment of orphan.segments) {
        events += await replaySegment(segment);
        spool.remove(segment);
      }
      spool.release(orphan);
      await forgetMarks(orm.em.fork(), orphan.owner);
      if (orphan.segments.length > 0) options.onReplayed?.({ owner: orphan.owner, events });
    }
    const lowest = spool.lowestPosition();
    if (lowest > prunedBelow) {
      await forgetMarks(orm.em.fork(), spool.owner, lowest);
      prunedBelow = lowest;
    }
    if (Date.now() - lastSweep >= MARK_SWEEP_INTERVAL_MS) {
      await forgetMarksBefore(orm.em.fork(), new Date(Date.now() - MARK_RETENTION_MS));
      lastSweep = Date.now();
    }
  };

  // One pass at a time, in order.
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  const enqueue = (run: () => Promise<void>): Promise<void> => {
    queued++;
    tail = tail
      .then(run)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        queued--;
      });
    return tail;
  };

  const timer = setInterval(() => {
    if (queued === 0) void enqueue(pass);
  }, options.intervalMs ?? 10_000);
  timer.unref();
  void enqueue(pass);

  return {
    replayNow: () => enqueue(pass),
    async close() {
      clearInterval(timer);
      // Spools of other dead processes are left to the processes that stay.
      await enqueue(readBack);
      const { leftBehind } = await spool.close();
      // No file of this process is left: neither are the marks of its events needed.
      if (!leftBehind) {
        await forgetMarks(orm.em.fork(), spool.owner).catch((error: unknown) => options.onError?.(error));
      }
    },
  };
}
