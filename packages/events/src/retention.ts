import { type Orm, rows, sql } from '@keyplane/db';
import type { RawBuilder } from 'kysely';
import { defaultPartition, dropExpiredEventPartitions, EVENT_TABLES } from './eventPartitions.ts';
import { bucketStart, GRANULARITIES, rollupTable } from './rollups.ts';

export interface RetentionResult {
  /** Rows deleted per table (of the raw event tables: from their default partition). */
  deleted: Record<string, number>;
  /** Day partitions of the raw event tables dropped whole. */
  dropped: string[];
}

export interface RetentionOptions {
  /** Events older than this go. */
  before: Date;
  /** Rows per DELETE: short statements keep locks and WAL bursts small next to live traffic. */
  batchSize?: number;
}

/**
 * Drops analytics data older than the cutoff. Raw events go with their day partition once that
 * whole day is before the cutoff (so they are kept up to a day longer), and those in the default
 * partition (days without a partition of their own) in batches of short deletes once their time
 * is before it. A rollup bucket goes once it ends before the cutoff (it is whole up to then), so
 * rollups keep the same retention, rounded up to their bucket.
 */
export async function deleteExpiredAnalytics(orm: Orm, options: RetentionOptions): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 10_000;
  const cutoffMs = options.before.getTime();
  const deleted: Record<string, number> = {};
  const dropped: string[] = [];
  for (const table of EVENT_TABLES) {
    dropped.push(...(await dropExpiredEventPartitions(orm, table, options.before)));
    deleted[table] = await deleteInBatches(orm, defaultPartition(table), sql`time < ${options.before}`, batchSize);
    for (const granularity of GRANULARITIES) {
      const rollup = rollupTable(table, granularity);
      const boundary = bucketStart(granularity, sql`${cutoffMs}::float8`);
      deleted[rollup] = await deleteInBatches(orm, rollup, sql`time < ${boundary}`, batchSize);
    }
  }
  return { deleted, dropped };
}

async function deleteInBatches(
  orm: Orm,
  table: string,
  expired: RawBuilder<unknown>,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    // Raw: the table is named at run time, and rows are found again by ctid (the rollup tables have
    // composite keys, and a TID scan is the cheapest way back to the rows).
    const [result] = await rows(
      orm.em.fork(),
      sql<{ deleted: number }>`
        with gone as (
          delete from ${sql.table(table)}
          where ctid = any(array(select ctid from ${sql.table(table)} where ${expired} limit ${batchSize}))
          returning 1
        )
        select count(*)::int as deleted from gone`,
    );
    const deleted = result?.deleted ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
