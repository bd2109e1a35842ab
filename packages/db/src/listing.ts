import { sql } from './sql.ts';

/** What a list procedure reads: one page of a workspace's rows in id order. */
export interface PageQuery {
  /** Rows from this id on (`id >= fromId`), from the cursor of the previous page. */
  fromId?: string;
  /** How many rows to return at most; a list asks for one more than its page size. */
  count: number;
  /** Case-insensitive "contains" on the searchable columns. */
  search?: string;
  /** Only rows with these ids (those a root key's grants name); undefined: every row. */
  ids?: readonly string[];
}

/** `column >= fromId` when a page starts from a cursor. */
export const startingAt = (column: string, fromId: string | undefined) =>
  fromId === undefined ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} >= ${fromId}`;

/** `column` is one of `ids`, when a list is limited to them. */
export const amongIds = (column: string, ids: readonly string[] | undefined) =>
  ids === undefined ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} = any(${[...ids]}::text[])`;

/** `search` as a case-insensitive "contains" on any of these columns (a null column never matches). */
export function containsAny(columns: string[], search: string | undefined) {
  if (!search) return sql<boolean>`true`;
  // position() rather than ilike: the search text needs no escaping of % and _.
  const needle = sql`lower(${search})`;
  return sql<boolean>`(${sql.join(
    columns.map((column) => sql`position(${needle} in lower(${sql.ref(column)})) > 0`),
    sql` or `,
  )})`;
}

/**
 * How many rows, of those fetched for a page in order, the page takes when each row weighs
 * something (the permissions a role or a root key carries): at most `limit`, no more than fit in
 * `budget` together, and always the first, whatever it weighs. So a page's size is bounded by
 * what it carries, not only by how many rows it has (docs/contract.md#limits).
 */
export function budgetedPageLength(weights: readonly number[], limit: number, budget: number): number {
  let length = 0;
  let carried = 0;
  for (const weight of weights.slice(0, limit)) {
    if (length > 0 && carried + weight > budget) break;
    carried += weight;
    length += 1;
  }
  return length;
}

/** A page whose rows are chosen: the rows, and the id the next page starts from, if there is one. */
export interface ChosenPage<TRow> {
  rows: TRow[];
  nextId: string | undefined;
}
