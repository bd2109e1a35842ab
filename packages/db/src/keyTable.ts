import { LOW_CREDITS, latestRefillBoundary } from '@keyplane/core';
import type { RawBuilder } from 'kysely';
import { creditColumns, creditsStateOf, type KeyDetails } from './keyDetails.ts';
import { containsAny } from './listing.ts';
import { type EntityManager, sql, typed } from './sql.ts';

/** The columns the dashboard's keys table sorts by. */
export const KEY_TABLE_SORTS = [
  'name',
  'keyId',
  'start',
  'externalId',
  'status',
  'credits',
  'createdAt',
  'lastUsedAt',
  'expires',
] as const;
export type KeyTableSort = (typeof KEY_TABLE_SORTS)[number];

/** A key status (core `keyStatus`), or `low_credits` (core `hasLowCredits`). */
export const KEY_TABLE_FILTERS = ['enabled', 'disabled', 'expired', 'out_of_credits', 'low_credits'] as const;
export type KeyTableFilter = (typeof KEY_TABLE_FILTERS)[number];

export interface KeyTableQuery {
  apiId: string;
  /** Case-insensitive "contains" on the key's id, name, start or its identity's external id. */
  search?: string;
  status?: KeyTableFilter;
  sort: { column: KeyTableSort; descending: boolean };
  offset: number;
  limit: number;
  /** The time statuses and due refills are judged at (ms). */
  now: number;
}

/**
 * A key as the table shows it: what it is, its status and credits and its identity, without what a
 * key can carry in bulk (meta, permissions, roles, limits), so that a page's size is bounded by
 * its number of rows (docs/contract.md#limits).
 */
export type KeyTableRow = Omit<
  KeyDetails,
  'meta' | 'permissions' | 'roles' | 'ratelimits' | 'ciphertext' | 'identity'
> & {
  identity: { id: string; externalId: string } | null;
};

export interface KeyTablePage {
  keys: KeyTableRow[];
  /** Every key the search and filter match, over all pages. */
  total: number;
}

/**
 * The balance a reader sees (core `effectiveRemaining`) of key `p`: a refill whose boundary passed
 * since its last refill counts. The boundaries come from core's `latestRefillBoundary` (daily, and
 * monthly for each refill day), so SQL never redoes the calendar.
 */
function effectiveRemaining(now: number) {
  const daily = latestRefillBoundary({ interval: 'daily', refillDay: null }, now);
  const monthly = Array.from({ length: 31 }, (_, index) =>
    latestRefillBoundary({ interval: 'monthly', refillDay: index + 1 }, now),
  );
  const boundary = sql`(case p.refill_interval
      when 'daily' then ${daily}::float8
      when 'monthly' then (${monthly}::float8[])[p.refill_day] end)`;
  const lastRefillMs = sql`(extract(epoch from coalesce(p.last_refill_at, to_timestamp(0))) * 1000)::float8`;
  return sql<number | null>`(case
      when p.credits_remaining is null then null
      when p.refill_amount is not null and ${boundary} > ${lastRefillMs}
        then greatest(p.credits_remaining, p.refill_amount)
      else p.credits_remaining end)`;
}

/** Core `keyStatus` of key `p`, in SQL: disabled, then expired, then out of credits. */
function status(now: number, remaining: RawBuilder<number | null>) {
  return sql<string>`(case
      when not p.enabled then 'disabled'
      when p.expires_at is not null and p.expires_at < ${new Date(now)}::timestamptz then 'expired'
      when ${remaining} < 1 then 'out_of_credits'
      else 'enabled' end)`;
}

/** How a column's empty values sort: as the largest value (unlimited, never expires), the smallest (never used), or always last. */
type EmptyValues = 'largest' | 'smallest' | 'last';

const SORTS: Record<KeyTableSort, { expression: (alias: string) => RawBuilder<unknown>; empty: EmptyValues }> = {
  name: { expression: (t) => sql`lower(coalesce(${sql.ref(`${t}.name`)}, ${sql.ref(`${t}.id`)}))`, empty: 'last' },
  keyId: { expression: (t) => sql.ref(`${t}.id`), empty: 'last' },
  start: { expression: (t) => sql.ref(`${t}.start`), empty: 'last' },
  externalId: { expression: (t) => sql`lower(${sql.ref(`${t}.sort_external_id`)})`, empty: 'last' },
  status: {
    expression: (t) =>
      sql`array_position(array['enabled', 'out_of_credits', 'expired', 'disabled'], ${sql.ref(`${t}.status`)})`,
    empty: 'last',
  },
  credits: { expression: (t) => sql.ref(`${t}.effective_remaining`), empty: 'largest' },
  createdAt: { expression: (t) => sql.ref(`${t}.created_at`), empty: 'last' },
  lastUsedAt: { expression: (t) => sql.ref(`${t}.last_used_at`), empty: 'smallest' },
  expires: { expression: (t) => sql.ref(`${t}.expires_at`), empty: 'largest' },
};

/** `order by` of the chosen column, then the key id, both in the chosen direction. */
function ordering(alias: string, sort: KeyTableQuery['sort']) {
  const { expression, empty } = SORTS[sort.column];
  const emptyFirst = empty === 'largest' ? sort.descending : empty === 'smallest' && !sort.descending;
  const direction = sort.descending ? sql`desc` : sql`asc`;
  return sql`${expression(alias)} ${direction} ${emptyFirst ? sql`nulls first` : sql`nulls last`}, ${sql.ref(`${alias}.id`)} ${direction}`;
}

/**
 * One page of an API's live keys for the dashboard's table: searched, filtered by status, sorted by
 * any column and counted across all pages, with everything shown about each key. Statuses are
 * judged in SQL exactly as core's `keyStatus` and `hasLowCredits` judge them, so a filter and the
 * badge the row shows always agree.
 */
export async function listKeyTablePage(
  em: EntityManager,
  workspaceId: string,
  query: KeyTableQuery,
): Promise<KeyTablePage> {
  const db = typed(em);
  const remaining = effectiveRemaining(query.now);
  const candidates = db
    .selectFrom('keys as p')
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'p.api_id').on('a.deleted_at', 'is', null))
    .leftJoin('identities as o', (join) => join.onRef('o.id', '=', 'p.identity_id').on('o.deleted_at', 'is', null))
    .selectAll('p')
    .select([
      remaining.as('effective_remaining'),
      status(query.now, remaining).as('status'),
      'o.external_id as sort_external_id',
    ])
    .where('p.api_id', '=', query.apiId)
    .where('p.workspace_id', '=', workspaceId)
    .where('p.deleted_at', 'is', null)
    .where(containsAny(['p.id', 'p.name', 'p.start', 'o.external_id'], query.search));
  const matching = db.selectFrom(candidates.as('c')).selectAll('c').where(statusFilter(query.status));
  const counted = await db
    .selectFrom(matching.as('m'))
    .select(sql<number>`count(*)::int`.as('total'))
    .executeTakeFirstOrThrow();
  const found = await db
    .selectFrom(matching.orderBy(ordering('c', query.sort)).offset(query.offset).limit(query.limit).as('k'))
    .leftJoin('identities as i', (join) => join.onRef('i.id', '=', 'k.identity_id').on('i.deleted_at', 'is', null))
    .select([
      'k.id',
      'k.workspace_id',
      'k.api_id',
      'k.start',
      'k.name',
      'k.enabled',
      'k.created_at',
      'k.updated_at',
      'k.last_used_at',
      'k.expires_at',
      ...creditColumns.map((column) => `k.${column}` as const),
      'i.id as identity_id',
      'i.external_id',
    ])
    .orderBy(ordering('k', query.sort))
    .execute();
  return {
    keys: found.map((row) => ({
      id: row.id,
      workspaceId: row.workspace_id,
      apiId: row.api_id,
      start: row.start,
      name: row.name,
      enabled: row.enabled,
      createdAt: row.created_at.getTime(),
      updatedAt: row.updated_at?.getTime() ?? null,
      lastUsedAt: row.last_used_at?.getTime() ?? null,
      expires: row.expires_at?.getTime() ?? null,
      credits: creditsStateOf(row),
      identity: row.identity_id && row.external_id ? { id: row.identity_id, externalId: row.external_id } : null,
    })),
    total: counted.total,
  };
}

/** The candidate row `c`'s status is the one asked for; low credits as core `hasLowCredits` says. */
function statusFilter(filter: KeyTableFilter | undefined) {
  if (filter === undefined) return sql<boolean>`true`;
  if (filter !== 'low_credits') return sql<boolean>`c.status = ${filter}`;
  return sql<boolean>`(c.status = 'enabled' and c.effective_remaining is not null and c.effective_remaining <=
    case when c.refill_interval is not null and c.refill_amount is not null
      then ${LOW_CREDITS.shareOfRefill}::float8 * c.refill_amount
      else ${LOW_CREDITS.withoutRefill} end)`;
}
