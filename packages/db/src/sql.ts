import type { EntityManager } from '@mikro-orm/postgresql';
import type { RawBuilder } from 'kysely';

import { sql } from 'kysely';

export type { EntityManager };
export { sql };

/**
 * Runs a raw statement on the entity manager's connection (inside its transaction, if one is open).
 * Kysely sends real bind parameters, which arrays and jsonb need.
 */
export async function rows<TRow>(em: EntityManager, statement: RawBuilder<TRow>): Promise<TRow[]> {
  const result = await statement.execute(em.getKysely());
  return result.rows;
}

/** A timestamptz column as unix milliseconds (a JS number): the connection hands raw dates back as strings. */
export function epochMs(column: string) {
  return sql<number | null>`(extract(epoch from ${sql.ref(column)}) * 1000)::float8`;
}
