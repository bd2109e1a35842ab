import { sql } from '@keyplane/db';
import type { RawBuilder } from 'kysely';

export type Granularity = 'minute' | 'hour' | 'day' | 'month';

export const GRANULARITIES: readonly Granularity[] = ['minute', 'hour', 'day', 'month'];

/** The fixed-width buckets, in milliseconds; months are calendar months (UTC). */
const WIDTH_MS: Record<Exclude<Granularity, 'month'>, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** The physical rollup table of an event table, e.g. key_verifications_per_day. */
export function rollupTable(events: 'key_verifications' | 'ratelimit_events', granularity: Granularity): string {
  return `${events}_per_${granularity}`;
}

/** The start of an event's minute bucket, as {@link bucketStart} computes it in SQL. */
export const minuteStart = (timeMs: number): number => Math.floor(timeMs / WIDTH_MS.minute) * WIDTH_MS.minute;

/**
 * A batch's minute totals, filed under two of their fields whose strings the caches share (so
 * their hashes are computed once), then in the order their minutes began. An event's total is
 * searched among the current minute's, the last ones of its list: a key or an identifier has few
 * groups a minute. One string key built of all its fields would be hashed anew for every event
 * (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
 * A group may get a second total (an event after its minute's were passed, as a clock set back
 * makes): the rollup statements sum a group's totals, so counts stay exact.
 */
export type MinuteTotals<TTotal> = Map<string, Map<string, TTotal[]>>;

/** The totals filed under `outer` and `inner`, an empty list made for them at first use. */
export function totalsOf<TTotal>(totals: MinuteTotals<TTotal>, outer: string, inner: string): TTotal[] {
  let byInner = totals.get(outer);
  if (byInner === undefined) {
    byInner = new Map();
    totals.set(outer, byInner);
  }
  let list = byInner.get(inner);
  if (list === undefined) {
    list = [];
    byInner.set(inner, list);
  }
  return list;
}

/** Every total, for the rollup statement. */
export function allTotals<TTotal>(totals: MinuteTotals<TTotal>): TTotal[] {
  return [...totals.values()].flatMap((byInner) => [...byInner.values()].flat());
}

/** The bucket start in unix milliseconds (UTC) of a time given in unix milliseconds. */
export function bucketStart(granularity: Granularity, timeMs: RawBuilder<unknown>): RawBuilder<number> {
  if (granularity === 'month') {
    return sql<number>`(extract(epoch from date_trunc('month', to_timestamp(${timeMs} / 1000.0) at time zone 'UTC')) * 1000)::int8`;
  }
  const width = sql.lit(WIDTH_MS[granularity]);
  return sql<number>`(floor(${timeMs} / ${width}) * ${width})::int8`;
}

/**
 * One data-modifying CTE per granularity, named after it, each upserting the batch's aggregates
 * into its rollup table: added to the statement that inserts the raw events, so a batch lands in
 * every table or in none, and a retried batch is never counted twice.
 */
export function rollupUpserts(upsert: (granularity: Granularity) => RawBuilder<unknown>): RawBuilder<unknown> {
  return sql.join(
    GRANULARITIES.map((granularity) => sql`${sql.id(`rollup_${granularity}`)} as (${upsert(granularity)})`),
    sql`, `,
  );
}
