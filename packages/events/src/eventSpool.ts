import { randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/**
 * The local, append-only spool every event is written to before the answer that reports it, so
 * that a crash of the process loses no answered event: whatever it had not yet written to
 * PostgreSQL is replayed from here by the next process to look (see spoolReplay.ts).
 *
 * Layout of the directory, which several processes on one machine may share:
 *
 *   <owner>.sock             a Unix socket each live process listens on. Connecting is how others
 *                            tell whether it still runs: the kernel closes it however the process
 *                            ends, and a restarted container (pid 1 again) has a new owner id.
 *   <database>/<owner>/      one process's segment files, under the database they belong to
 *   <database>/<owner>@<holder>/   a dead process's segments, taken over by <holder> to replay
 *
 * A segment file, `<start>.seg`, holds chunks: a header `#<position> <count>` and then that many
 * lines, `<tag><event>`, the events at that position and after. What an event's text is, its
 * stream says (its table's COPY row, see eventRecorder.ts): the spool keeps it, one line each.
 * Positions number one owner's events from 0; PostgreSQL keeps the marks of those written
 * (spoolMarks.ts).
 */
export interface EventSpool {
  /** This process's id in the spool and in the marks of what it wrote. */
  readonly owner: string;
  /**
   * Adds one event's line to the chunk written at the end of this event-loop turn and answers
   * its position, or NOT_SPOOLED when the spool cannot take it (closed, or failing: see
   * SpoolOptions.onError).
   */
  append(tag: string, text: string): number;
  /** Resolves once every line appended so far has been handed to the operating system. */
  written(): Promise<void>;
  /** These positions (ascending) were written to PostgreSQL, or refused by it. */
  settle(positions: readonly number[]): void;
  /** These positions (ascending) were dropped from memory: they will be read back from the file. */
  evict(positions: readonly number[]): void;
  /** This process's segments with evicted events and nothing else pending, to read back now. */
  segmentsToReadBack(): SpoolSegment[];
  /**
   * Takes over the segments of dead processes of this database (renaming their directories, so
   * that exactly one process holds each), along with those taken over earlier.
   */
  adoptOrphans(): Promise<OrphanedSpool[]>;
  /** Deletes a segment whose events are all in PostgreSQL. */
  remove(segment: SpoolSegment): void;
  /** Deletes an orphaned spool once its segments are removed. */
  release(orphan: OrphanedSpool): void;
  /** The lowest position still in one of this process's files: marks below it are not needed. */
  lowestPosition(): number;
  /**
   * Writes what is pending, deletes what was settled and stops listening. Segments with events not
   * yet in PostgreSQL are left for the next process to replay; answers whether there were any.
   */
  close(): Promise<{ leftBehind: boolean }>;
}

/** The segment file of `owner` whose first chunk starts at position `start`. */
export interface SpoolSegment {
  owner: string;
  start: number;
  path: string;
}

/** The spool directory of a dead process, now held by this one. */
export interface OrphanedSpool {
  owner: string;
  path: string;
  segments: SpoolSegment[];
}

export interface SpoolOptions {
  dir: string;
  /** Which database the events belong to (see databaseIdOf). */
  databaseId: string;
  /** Bytes of this process's own segments at most; past it the oldest segment is deleted. */
  maxBytes?: number;
  /**
   * A spool file could not be written (the events of the next second are then kept in memory
   * only, before it is tried again), closed or deleted (tried again when next due).
   */
  onError?: (error: unknown) => void;
  /**
   * The spool was full and its oldest segment was deleted: `lost` of its events were in neither
   * PostgreSQL nor memory, `inMemoryOnly` are still in memory and written when the database is back.
   */
  onFull?: (dropped: { lost: number; inMemoryOnly: number }) => void;
}

export const NOT_SPOOLED = -1;

/** A segment is closed and a new one started past this size, or past an eighth of maxBytes. */
const SEGMENT_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
/** After a failed write, how long events are kept in memory only before the spool is tried again. */
const RETRY_AFTER_MS = 1000;
const SEGMENT_SUFFIX = '.seg';
const SOCKET_SUFFIX = '.sock';
const RESOLVED = Promise.resolve();

interface Segment {
  start: number;
  /** Lines written to it. */
  count: number;
  bytes: number;
  /** Of those, lines whose events are in PostgreSQL (or were refused by it). */
  settled: number;
  /** Of those, lines whose events were dropped from memory. */
  evicted: number;
}

/** Lines of the pending chunk settled or evicted before it was written. */
interface Ahead {
  settled: number;
  evicted: number;
}

export async function openEventSpool(options: SpoolOptions): Promise<EventSpool> {
  const owner = randomBytes(9).toString('base64url');
  const databaseDir = join(options.dir, options.databaseId);
  const ownDir = join(databaseDir, owner);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const segmentBytes = Math.min(SEGMENT_BYTES, Math.floor(maxBytes / 8));

  mkdirSync(options.dir, { recursive: true });
  // Listening before the directory exists: a segment directory whose owner has no socket is an orphan.
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(options.dir, `${owner}${SOCKET_SUFFIX}`), () => resolve());
  });
  server.unref();
  // Events carry tags and identities: readable by the server's user alone.
  mkdirSync(ownDir, { recursive: true, mode: 0o700 });

  /** This process's segments, oldest first. */
  const segments: Segment[] = [];
  /** The segment being appended to. */
  let open: { segment: Segment; fd: number } | undefined;
  let spooledBytes = 0;
  let nextPosition = 0;
  /** The lines appended in this turn, three strings each (tag, text, newline), joined once when written. */
  let chunk: string[] = [];
  let chunkStart = 0;
  let chunkWritten: Promise<void> | undefined;
  let resolveChunk = () => {};
  const ahead: Ahead = { settled: 0, evicted: 0 };
  let paused = false;
  let closed = false;

  const pathOf = (segment: Segment) => join(ownDir, `${segment.start}${SEGMENT_SUFFIX}`);

  // File operations off the write path report their failures rather than throw: they run in the
  // recorders' flushes and in timers, where an exception would end the process.
  const seal = (segment: Segment) => {
    if (open?.segment !== segment) return;
    const { fd } = open;
    open = undefined;
    try {
      closeSync(fd);
    } catch (error) {
      options.onError?.(error);
    }
  };

  /** Deletes a segment; one that cannot be deleted is kept (with it the marks of its events) and tried again later. */
  const drop = (segment: Segment): boolean => {
    seal(segment);
    try {
      unlinkSync(pathOf(segment));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        options.onError?.(error);
        return false;
      }
    }
    spooledBytes -= segment.bytes;
    segments.splice(segments.indexOf(segment), 1);
    return true;
  };

  /** Deletes the oldest segments while the next write would pass maxBytes, sparing the one appended to. */
  const makeRoom = (bytes: number) => {
    for (let oldest = segments[0]; oldest && oldest !== open?.segment && spooledBytes + bytes > maxBytes; ) {
      if (!drop(oldest)) return;
      options.onFull?.({ lost: oldest.evicted, inMemoryOnly: oldest.count - oldest.settled - oldest.evicted });
      oldest = segments[0];
    }
  };

  /** Deletes the segments whose events are all settled, the open one too: the next chunk starts another. */
  const removeSettled = () => {
    for (const segment of segments.filter(({ count, settled }) => settled === count)) drop(segment);
  };

  const openSegment = (start: number) => {
    const segment: Segment = { start, count: 0, bytes: 0, settled: 0, evicted: 0 };
    open = { segment, fd: openSync(pathOf(segment), 'wx', 0o600) };
    segments.push(segment);
    return open;
  };

  // Written once per event-loop turn, for every line appended during it. setImmediate, not
  // process.nextTick: next ticks run after each I/O callback, so requests completing in the same
  // poll phase would each pay a write; the check phase comes once that phase is over. The chunk's
  // promise resolves only after writeSync returned, and the procedure that recorded the event
  // awaits it before returning: the answer is built, and its first byte written to the socket,
  // after the event is in the kernel, where a crash of this process cannot take it back.
  // A failed write resolves too: the verification has happened (credits may be spent), and its
  // event stays in memory and goes to PostgreSQL as usual; only the crash guarantee is lost for it.
  const writeChunk = () => {
    if (chunk.length === 0) return;
    const lines = chunk.length / 3;
    const first = chunkStart;
    const data = Buffer.from(`#${first} ${lines}\n${chunk.join('')}`);
    const { settled, evicted } = ahead;
    const resolve = resolveChunk;
    chunk = [];
    chunkStart = nextPosition;
    chunkWritten = undefined;
    ahead.settled = 0;
    ahead.evicted = 0;
    try {
      makeRoom(data.length);
      const { segment, fd } = open ?? openSegment(first);
      try {
        for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset);
      } catch (error) {
        // Nothing more goes into this segment, and it keeps whole chunks only: what the write left
        // of this one is cut off (its events are in memory), and the segment goes once the events
        // of the chunks before are settled.
        try {
          ftruncateSync(fd, segment.bytes);
        } finally {
          seal(segment);
        }
        throw error;
      }
      segment.count += lines;
      segment.bytes += data.length;
      segment.settled += settled;
      segment.evicted += evicted;
      spooledBytes += data.length;
      if (segment.bytes >= segmentBytes) seal(segment);
    } catch (error) {
      paused = true;
      setTimeout(() => {
        paused = false;
      }, RETRY_AFTER_MS).unref();
      options.onError?.(error);
    } finally {
      removeSettled();
      resolve();
    }
  };

  /** Adds positions (ascending) to the settled or evicted counts of the segments holding them. */
  const tally = (positions: readonly number[], field: keyof Ahead) => {
    let index = 0;
    for (const position of positions) {
      if (position < 0) continue;
      if (position >= chunkStart) {
        ahead[field]++;
        continue;
      }
      let segment = segments[index];
      if (segment && position < segment.start) {
        index = 0;
        segment = segments[0];
      }
      while (segment && position >= segment.start + segment.count) segment = segments[++index];
      // Outside every segment: a failed write's, or one deleted when the spool was full.
      if (segment && position >= segment.start) segment[field]++;
    }
  };

  const isAlive = (processOwner: string) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(join(options.dir, `${processOwner}${SOCKET_SUFFIX}`));
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      // Only these two say that nobody listens; anything else (a full backlog, too many open files)
      // is no proof of death, and a live process's segments must never be taken.
      socket.once('error', (error: NodeJS.ErrnoException) =>
        resolve(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'),
      );
    });

  /** Removes the sockets of dead processes (their segment directories already tell they are dead). */
  const sweepSockets = async () => {
    for (const name of readdirSync(options.dir)) {
      if (!name.endsWith(SOCKET_SUFFIX) || name === `${owner}${SOCKET_SUFFIX}`) continue;
      if (!(await isAlive(name.slice(0, -SOCKET_SUFFIX.length)))) rmSync(join(options.dir, name), { force: true });
    }
  };

  const segmentsIn = (path: string, segmentOwner: string): SpoolSegment[] =>
    readdirSync(path)
      .filter((file) => file.endsWith(SEGMENT_SUFFIX))
      .map((file) => ({
        owner: segmentOwner,
        start: Number(file.slice(0, -SEGMENT_SUFFIX.length)),
        path: join(path, file),
      }))
      .sort((a, b) => a.start - b.start);

  return {
    owner,
    append(tag, text) {
      if (paused || closed) return NOT_SPOOLED;
      if (chunk.length === 0) {
        chunkWritten = new Promise((resolve) => {
          resolveChunk = resolve;
        });
        setImmediate(writeChunk);
      }
      chunk.push(tag, text, '\n');
      return nextPosition++;
    },
    written: () => chunkWritten ?? RESOLVED,
    settle(positions) {
      tally(positions, 'settled');
      removeSettled();
    },
    evict(positions) {
      tally(positions, 'evicted');
    },
    segmentsToReadBack() {
      const due = segments.filter(({ count, settled, evicted }) => evicted > 0 && settled + evicted === count);
      // The open one too: nothing of it is pending any more, and the next chunk starts another.
      for (const segment of due) seal(segment);
      return due.map((segment) => ({ owner, start: segment.start, path: pathOf(segment) }));
    },
    async adoptOrphans() {
      const orphans: OrphanedSpool[] = [];
      for (const entry of readdirSync(databaseDir, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name === owner) continue;
        const [deadOwner = entry.name, holder = deadOwner] = entry.name.split('@');
        let path = join(databaseDir, entry.name);
        if (holder !== owner) {
          if (await isAlive(holder)) continue;
          const adopted = join(databaseDir, `${deadOwner}@${owner}`);
          try {
            renameSync(path, adopted);
          } catch (error) {
            // Another process took it first.
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
            throw error;
          }
          path = adopted;
        }
        orphans.push({ owner: deadOwner, path, segments: segmentsIn(path, deadOwner) });
      }
      await sweepSockets();
      return orphans;
    },
    remove(segment) {
      const own = segment.owner === owner ? segments.find(({ start }) => start === segment.start) : undefined;
      if (own) drop(own);
      else rmSync(segment.path, { force: true });
    },
    release(orphan) {
      rmSync(orphan.path, { recursive: true, force: true });
    },
    lowestPosition: () => segments[0]?.start ?? chunkStart,
    async close() {
      writeChunk();
      closed = true;
      if (open) seal(open.segment);
      removeSettled();
      const leftBehind = segments.length > 0;
      if (!leftBehind) {
        rmSync(ownDir, { recursive: true, force: true });
        // The database's directory too, unless another process's directory is in it.
        try {
          rmdirSync(databaseDir);
        } catch (error) {
          const { code } = error as NodeJS.ErrnoException;
          if (code !== 'ENOTEMPTY' && code !== 'ENOENT') throw error;
        }
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return { leftBehind };
    },
  };
}

/** One event line read back from a segment. */
export interface SpooledLine {
  position: number;
  tag: string;
  event: unknown;
}

/** Reads the text of a line with this tag back: its event, or undefined when the text is damaged. */
export type LineReader = (tag: string, text: string) => unknown;

/**
 * The intact lines of a segment file. A chunk cut short (the process died during the write) ends
 * at its last complete line. A line that does not read ends its chunk: after damage (a machine
 * crash can leave zeros in place of data the kernel had not written back) the positions of the
 * lines that follow in that chunk are no longer known, so they are counted as damaged instead.
 */
export function readSegment(path: string, read: LineReader): { lines: SpooledLine[]; damaged: number } {
  const lines: SpooledLine[] = [];
  let damaged = 0;
  let position = 0;
  let remaining = 0;
  const text = readFileSync(path, 'utf8');
  // What follows the last newline is a line cut short, never acknowledged.
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  for (const line of complete.split('\n').slice(0, -1)) {
    const header = /^#(\d+) (\d+)$/.exec(line);
    if (header) {
      position = Number(header[1]);
      remaining = Number(header[2]);
      continue;
    }
    const tag = line.charAt(0);
    const event = remaining > 0 ? read(tag, line.slice(1)) : undefined;
    if (event === undefined) {
      damaged++;
      remaining = 0;
      continue;
    }
    lines.push({ position, tag, event });
    position++;
    remaining--;
  }
  return { lines, damaged };
}
