import type { EntityManager } from '@mikro-orm/postgresql';
import type { AliasedRawBuilder, Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Database } from './entities/database.ts';

export type { EntityManager };
export { sql };

/**
 * Typed queries on the entity manager's connection (inside its transaction, if one is open): tables
 * and columns as the entities define them, values converted as the entities type them (timestamps
 * as Dates, bigints as numbers). Raw `sql` is kept for what the builder cannot say or where a
 * statement earns its hand-written form (locks, COPY, partition DDL, the credit spend); set-based
 * writes take their arrays through {@link unnestAs}.
 * Results are converted by column name: a column selected under a name of its own (`as …`) comes
 * back as the driver gives it, a timestamp as a string, whatever its type says.
 */
export function typed(em: EntityManager): Kysely<Database> {
  return em.getKysely<Database>({ convertValues: true });
}

/**
 * Runs a raw statement on the entity manager's connection (inside its transaction, if one is open).
 * Kysely sends real bind parameters, which arrays and jsonb need.
 */
export async function rows<TRow>(em: EntityManager, statement: RawBuilder<TRow>): Promise<TRow[]> {
  const result = await statement.execute(em.getKysely());
  return result.rows;
}

/** The array element types {@link unnestAs} takes, and what each holds. */
interface ArrayElements {
  text: string | null;
  int8: number | null;
  float8: number | null;
  bool: boolean | null;
}

/**
 * Parallel arrays as the rows of a typed query's `from` (`unnest(…) as alias(columns)`), each column
 * given as its element type and its values (or an array literal, see arrayLiterals.ts): one bind
 * parameter per column however many rows, so a set-based write has one statement for any batch.
 */
export function unnestAs<A extends string, C extends Record<string, readonly [keyof ArrayElements, unknown]>>(
  alias: A,
  columns: C,
): AliasedRawBuilder<{ [K in keyof C]: ArrayElements[C[K][0]] }, A> {
  const names = Object.keys(columns);
  const arrays = Object.values(columns).map(([type, values]) => sql`${values}::${sql.raw(type)}[]`);
  return sql<{ [K in keyof C]: ArrayElements[C[K][0]] }>`unnest(${sql.join(arrays)})`.as<A>(
    sql`${sql.id(alias)}(${sql.join(names.map((name) => sql.id(name)))})`,
  );
}

/**
 * A timestamptz column as whole unix milliseconds (a JS number): the connection hands raw dates back
 * as strings, and the API gives times as integers. Rounded down, so the microseconds `now()` stamps
 * never show and a time written from a JS Date reads back unchanged (`extract` is exact numeric).
 */
export function epochMs(column: string) {
  return sql<number | null>`floor(extract(epoch from ${sql.ref(column)}) * 1000)::float8`;
}

/** A timestamp read through {@link typed} as unix milliseconds (a converted Date holds whole milliseconds). */
export function unixMs(date: Date | null): number | null {
  return date === null ? null : date.getTime();
}

/** The SQLSTATE of a PostgreSQL error, wherever the drivers wrapped it; undefined for anything else. */
export function databaseErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return undefined;
    if ('code' in current && typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) {
      return current.code;
    }
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/**
 * Whether PostgreSQL refused the data itself (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): the same statement with the same values will fail again, unlike a lost
 * connection or a timeout.
 */
export function refusedData(error: unknown): boolean {
  const code = databaseErrorCode(error);
  return code !== undefined && (code.startsWith('22') || code.startsWith('23'));
}
