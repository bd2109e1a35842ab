import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { copyField, copyTimestamp, type EventTransaction } from './eventTransaction.ts';
import { bucketStart, type Granularity, groupTotals, minuteStart, rollupTable, rollupUpserts } from './rollups.ts';
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

interface MinuteTotal {
  workspaceId: string;
  time: number;
  namespaceId: string;
  identifier: string;
  passed: boolean;
  count: number;
}

/** The batch's decisions counted per minute bucket, namespace, identifier and outcome. */
function minuteTotals(batch: readonly RatelimitEvent[]): MinuteTotal[] {
  return groupTotals<RatelimitEvent, MinuteTotal>(
    batch,
    (event) =>
      `${event.workspaceId}\0${minuteStart(event.time)}\0${event.namespaceId}\0${event.identifier}\0${event.passed}`,
    (event, total) => {
      if (total) {
        total.count++;
        return total;
      }
      const { workspaceId, namespaceId, identifier, passed } = event;
      return { workspaceId, time: minuteStart(event.time), namespaceId, identifier, passed, count: 1 };
    },
  );
}

/**
 * One batch of decisions in the caller's transaction: the raw decisions (COPY), then their
 * per-minute, hour, day and month rollups in one statement, from the batch's minute totals.
 */
export async function writeRatelimitEvents(tx: EventTransaction, batch: RatelimitEvent[]): Promise<void> {
  await tx.copyIn(COPY_DECISIONS, rawRows(batch));
  const totals = minuteTotals(batch);
  const texts = (key: 'workspaceId' | 'namespaceId' | 'identifier') =>
    textArrayLiteral(totals.map((total) => total[key]));
  const scalars = (key: 'time' | 'passed' | 'count') => scalarArrayLiteral(totals.map((total) => total[key]));
  await rows(
    tx.em,
    sql`
      with minute_totals as (
        select * from unnest(${texts('workspaceId')}::text[], ${scalars('time')}::int8[], ${texts('namespaceId')}::text[],
                             ${texts('identifier')}::text[], ${scalars('passed')}::bool[], ${scalars('count')}::int8[])
          as t(workspace_id, time, namespace_id, identifier, passed, count)
      ),
      ${rollupUpserts(ratelimitRollup)}
      select count(*) from minute_totals`,
  );
}
