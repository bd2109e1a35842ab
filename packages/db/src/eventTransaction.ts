import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Kysely, PostgresDialect } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import type { Orm } from './orm.ts';
import type { EntityManager } from './sql.ts';

/** The transaction a batch of events is written in. */
export interface EventTransaction {
  /** Runs statements in the transaction (rows, typed), as the one of `em.transactional` would. */
  readonly em: EntityManager;
  /** Streams rows in with `copy … from stdin`, in the transaction; `rows` is in COPY's text format (see copyField). */
  copyIn(statement: string, rows: string): Promise<void>;
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
      copyIn: (statement, rows) => pipeline(Readable.from([rows]), client.query(copyFrom(statement))),
    });
  });
}

/** COPY's escapes in its text format: a backslash, and the row and column separators. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const NEEDS_ESCAPE = /[\\\n\r\t]/g;
const HAS_ESCAPE = /[\\\n\r\t]/;

/** A value as a field of COPY's text format; null as `\N`. */
export function copyField(value: string | number | boolean | null): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  // Most values (ids, outcomes) need no escape: testing is cheaper than a replace that finds nothing.
  if (!HAS_ESCAPE.test(value)) return value;
  return value.replace(NEEDS_ESCAPE, (character) => COPY_ESCAPES[character] ?? character);
}

/**
 * Unix milliseconds as a timestamptz field, to the microsecond as to_timestamp would give it. A
 * time outside the years 1 to 9999 goes as its number, which PostgreSQL refuses as a timestamp
 * (a data error: the event is dropped like any refused value).
 */
export function copyTimestamp(timeMs: number): string {
  // The events of a batch share a handful of milliseconds: formatting each anew was a third of the
  // CPU of writing events (a profile of npm run bench:pipeline).
  if (timeMs === lastTimestamp.timeMs) return lastTimestamp.field;
  lastTimestamp.timeMs = timeMs;
  lastTimestamp.field = formatTimestamp(timeMs);
  return lastTimestamp.field;
}

const lastTimestamp = { timeMs: Number.NaN, field: '' };

function formatTimestamp(timeMs: number): string {
  const micros = Math.round(timeMs * 1000);
  const date = new Date(Math.floor(micros / 1000));
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 1 || year > 9999) return String(timeMs);
  const fraction = String(micros - date.getTime() * 1000).padStart(3, '0');
  return `${date.toISOString().slice(0, -1)}${fraction}Z`;
}
