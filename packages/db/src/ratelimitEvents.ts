import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { copyField, copyTimestamp, type EventTransaction } from './eventTransaction.ts';
import { bucketStart, type Granularity, rollupTable, rollupUpserts } from './rollups.ts';
import { rows, sql } from './sql.ts';

export interface RatelimitEvent {
  time: number;
  requestId: string;
  workspaceId: string;
  namespaceId: string;
  identifier: string;
  passed: boolean;
  limit: number;
  remaining: number;
  overrideId: string | null;
  latencyMs: number;
}

/** The batch's totals per minute bucket, which every rollup adds up (see verificationEvents.ts). */
const minuteTotals = sql`
  minute_totals as (
    select workspace_id, ${bucketStart('minute', sql.ref('time'))} as time, namespace_id, identifier, passed,
           count(*) as count
    from input
    group by 1, 2, 3, 4, 5
  )`;

/** Adds the batch's counts to one rollup table, locking rows in key order (see verificationEvents.ts). */
function ratelimitRollup(granularity: Granularity) {
  return sql`
    insert into ${sql.table(rollupTable('ratelimit_events', granularity))} as r
      (workspace_id, time, namespace_id, identifier, passed, count)
    select workspace_id, ${bucketStart(granularity, sql.ref('time'))}, namespace_id, identifier, passed, sum(count)
    from minute_totals
    group by 1, 2, 3, 4, 5
    order by 1, 2, 3, 4, 5
    on conflict (workspace_id, time, namespace_id, identifier, passed) do update set count = r.count + excluded.count`;
}

/** The raw decisions in COPY's text format, in the column order of {@link COPY_DECISIONS}. */
function rawRows(batch: RatelimitEvent[]): string {
  let text = '';
  for (const event of batch) {
    text += `${copyTimestamp(event.time)}\t${copyField(event.requestId)}\t${copyField(event.workspaceId)}\t${copyField(event.namespaceId)}\t${copyField(event.identifier)}\t${copyField(event.passed)}\t${copyField(event.limit)}\t${copyField(event.remaining)}\t${copyField(event.overrideId)}\t${copyField(event.latencyMs)}\n`;
  }
  return text;
}

const COPY_DECISIONS = `copy ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                            remaining, override_id, latency_ms) from stdin`;

/**
 * One batch of decisions in the caller's transaction: the raw decisions (COPY), then their
 * per-minute, hour, day and month rollups in one statement (see verificationEvents.ts).
 */
export async function writeRatelimitEvents(tx: EventTransaction, batch: RatelimitEvent[]): Promise<void> {
  await tx.copyIn(COPY_DECISIONS, rawRows(batch));
  const texts = (key: 'workspaceId' | 'namespaceId' | 'identifier') =>
    textArrayLiteral(batch.map((event) => event[key]));
  const scalars = (key: 'time' | 'passed') => scalarArrayLiteral(batch.map((event) => event[key]));
  await rows(
    tx.em,
    sql`
      with input as (
        select * from unnest(${scalars('time')}::float8[], ${texts('workspaceId')}::text[],
                             ${texts('namespaceId')}::text[], ${texts('identifier')}::text[], ${scalars('passed')}::bool[])
          as t(time, workspace_id, namespace_id, identifier, passed)
      ),
      ${minuteTotals},
      ${rollupUpserts(ratelimitRollup)}
      select count(*) from input`,
  );
}
