import type { Expression, SelectQueryBuilder } from 'kysely';
import { sql } from './sql.ts';

/**
 * Narrows a query of a table with an `id` to the row a caller named by its id or by its name in
 * `nameColumn` (a slug, an externalId). A name may look like another row's id: the id wins, so a
 * lookup never matches two rows. `reference` is a value, or a column of an outer query.
 */
export function namedBy(nameColumn: string, reference: string | Expression<string>) {
  return <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) =>
    query
      .where(sql<boolean>`(id = ${reference} or ${sql.ref(nameColumn)} = ${reference})`)
      .orderBy(sql`id = ${reference}`, 'desc')
      .limit(1);
}
