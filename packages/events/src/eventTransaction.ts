import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EntityManager, Orm } from '@keyplane/db';
import { Kysely, PostgresDialect } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import type { CopyRows } from './copyRows.ts';

/** The transaction a batch of events is written in. */
export interface EventTransaction {
  /** Runs statements in the transaction (rows, typed), as the one of `em.transactional` would. */
  readonly em: EntityManager;
  /** Streams rows in with `copy … from stdin`, in the transaction, a slice at a time (see copyChunks). */
  copyIn(statement: string, rows: CopyRows): Promise<void>;
}

/**
 * Runs `work` in one transaction, committed when it resolves and rolled back when it throws, in
 * which statements and COPY go together. MikroORM's transactions keep their pg client out of reach
 * (Kysely holds it privately), so this takes a client from the ORM's own pool, opens the
 * transaction through a Kysely on that one client, and binds an entity manager to it.
 */
export async function eventTransaction<T>(orm: Orm, work: (tx: EventTransaction) => Promise<T>): Promise<T> {
  const pool = await orm.em.getConnection().getNativeClient();
  const client = await pool.connect();
  // Kysely releases the client to the pool once the transaction ends (a broken one is discarded by the pool).
  const kysely = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: { connect: async () => client, end: async () => {}, options: {} } }),
  });
  return kysely.transaction().execute((transaction) => {
    const em = orm.em.fork();
    em.setTransactionContext(transaction);
    return work({
      em,
      // Raw: COPY, which the builder has no form for (docs/decisions/0007-copy-rows-off-heap.md).
      copyIn: (statement, rows) => pipeline(Readable.from(copyChunks(rows)), client.query(copyFrom(statement))),
    });
  });
}

/** Rows sent per turn of the event loop. */
const ROWS_PER_TURN = 250;

/**
 * A batch's bytes as COPY sends them, a slice at a time, with a turn of the event loop between
 * slices: a batch of 5,000 events is a megabyte, and the answers waiting behind its writes
 * should not wait for all of it (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
 */
export async function* copyChunks(rows: CopyRows): AsyncGenerator<Buffer> {
  for (let start = 0; start < rows.length; start += ROWS_PER_TURN) {
    if (start > 0) await nextTurn();
    yield rows.bytes(start, start + ROWS_PER_TURN);
  }
}

/** COPY's escapes in its text format: a backslash, and the row and column separators. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const NEEDS_ESCAPE = /[\\\n\r\t]/g;
const ESCAPED = /\\(.)/g;
const UNESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };
const HAS_ESCAPE = /[\\\n\r\t]/;

/**
 * Text as a field of COPY's text format; null as `\N`. A row is a template literal of its fields,
 * cheaper than an array of values mapped and joined; as a row lives one turn before its batch
 * keeps its bytes, being a tree of pieces until then costs nothing
 * (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
 */
export function copyText(value: string | null): string {
  if (value === null) return '\\N';
  // Most values (ids, outcomes) need no escape: testing is cheaper than a replace that finds nothing.
  if (!HAS_ESCAPE.test(value)) return value;
  return value.replace(NEEDS_ESCAPE, (character) => COPY_ESCAPES[character] ?? character);
}

/**
 * Milliseconds as a field, to the microsecond, formatted from integers: a measured duration's
 * shortest exact decimal has up to 17 digits, and finding it takes three times as long.
 */
export function copyMilliseconds(ms: number): string {
  const micros = Math.round(ms * 1000);
  if (!Number.isSafeInteger(micros) || micros < 0) return String(ms);
  const fraction = micros % 1000;
  return `${(micros - fraction) / 1000}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/** The values of a row of `columns` fields (see copyText); undefined for any other text. */
export function readCopyRow(row: string, columns: number): (string | null)[] | undefined {
  const fields = row.split('\t');
  return fields.length === columns ? fields.map(readCopyField) : undefined;
}

/** The value of a field {@link copyText} wrote; `\N` as null. */
function readCopyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(ESCAPED, (_, character: string) => UNESCAPES[character] ?? character);
}

/**
 * Unix milliseconds as a timestamptz field, to the microsecond as to_timestamp would give it. A
 * time outside the years 1 to 9999 goes as its number, which PostgreSQL refuses as a timestamp
 * (a data error: the event is dropped like any refused value).
 */
export function copyTimestamp(timeMs: number): string {
  // The events of a batch share a handful of milliseconds: each is formatted once, not per event
  // (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
  if (timeMs === lastTimestamp.timeMs) return lastTimestamp.field;
  lastTimestamp.timeMs = timeMs;
  lastTimestamp.field = formatTimestamp(timeMs);
  return lastTimestamp.field;
}

const lastTimestamp = { timeMs: Number.NaN, field: '' };

/** A field as {@link copyTimestamp} wrote it, as unix milliseconds again (to the microsecond). */
export function readCopyTimestamp(field: string): number {
  // 2026-11-27T04:23:41.123456Z: the milliseconds, then three digits of microseconds.
  if (field.length !== 27 || field[10] !== 'T') return Number(field);
  return Date.parse(`${field.slice(0, 23)}Z`) + Number(field.slice(23, 26)) / 1000;
}

function formatTimestamp(timeMs: number): string {
  const micros = Math.round(timeMs * 1000);
  const date = new Date(Math.floor(micros / 1000));
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 1 || year > 9999) return String(timeMs);
  const fraction = String(micros - date.getTime() * 1000).padStart(3, '0');
  return `${date.toISOString().slice(0, -1)}${fraction}Z`;
}
