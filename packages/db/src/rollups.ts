import type { RawBuilder } from 'kysely';
import { sql } from './sql.ts';

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

/**
 * A batch's events summed per group (minute bucket and dimensions), here rather than by
 * PostgreSQL: the rollups then read a row per group instead of one per event. `group` names an
 * event's group (its fields joined by a character no stored text holds); `add` starts a group's
 * total from its first event (`total` undefined) or adds an event to it.
 */
export function groupTotals<TEvent, TTotal>(
  batch: readonly TEvent[],
  group: (event: TEvent) => string,
  add: (event: TEvent, total: TTotal | undefined) => TTotal,
): TTotal[] {
  const totals = new Map<string, TTotal>();
  for (const event of batch) {
    const key = group(event);
    totals.set(key, add(event, totals.get(key)));
  }
  return [...totals.values()];
}

/** The start of an event's minute bucket, as {@link bucketStart} computes it in SQL. */
export const minuteStart = (timeMs: number): number => Math.floor(timeMs / WIDTH_MS.minute) * WIDTH_MS.minute;

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
