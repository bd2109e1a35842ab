import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import type { EventRows, EventTable } from './eventTable.ts';
import {
  copyMilliseconds,
  copyText,
  copyTimestamp,
  type EventTransaction,
  readCopyRow,
  readCopyTimestamp,
} from './eventTransaction.ts';
import {
  allTotals,
  bucketStart,
  type Granularity,
  type MinuteTotals,
  minuteStart,
  rollupTable,
  rollupUpserts,
  totalsOf,
} from './rollups.ts';
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

/** A decision as its COPY row, in the column order of {@link COPY_DECISIONS}. */
function decisionRow(event: RatelimitEvent): string {
  return (
    `${copyTimestamp(event.time)}\t${copyText(event.requestId)}\t${copyText(event.workspaceId)}\t` +
    `${copyText(event.namespaceId)}\t${copyText(event.identifier)}\t${event.passed}\t${event.limit}\t` +
    `${event.remaining}\t${copyText(event.overrideId)}\t${copyMilliseconds(event.latencyMs)}`
  );
}

function parseDecisionRow(row: string): RatelimitEvent | undefined {
  const [time, requestId, workspaceId, namespaceId, identifier, passed, limit, remaining, overrideId, latencyMs] =
    readCopyRow(row, 10) ?? [];
  if (!time || !requestId || !workspaceId || !namespaceId || typeof identifier !== 'string' || !limit || !remaining)
    return undefined;
  if ((passed !== 'true' && passed !== 'false') || !latencyMs) return undefined;
  const event = {
    time: readCopyTimestamp(time),
    requestId,
    workspaceId,
    namespaceId,
    identifier,
    passed: passed === 'true',
    limit: Number(limit),
    remaining: Number(remaining),
    overrideId: overrideId ?? null,
    latencyMs: Number(latencyMs),
  };
  return Number.isNaN(event.time + event.limit + event.remaining + event.latencyMs) ? undefined : event;
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

/** Decisions counted per minute bucket, namespace, identifier and outcome, filed by namespace and identifier. */
export type RatelimitTotals = MinuteTotals<MinuteTotal>;

function countDecision(minutes: RatelimitTotals, event: RatelimitEvent): void {
  const time = minuteStart(event.time);
  const { workspaceId, namespaceId, identifier, passed } = event;
  const totals = totalsOf(minutes, namespaceId, identifier);
  for (let index = totals.length - 1; index >= 0; index--) {
    const total = totals[index] as MinuteTotal;
    if (total.time !== time) break;
    if (total.passed === passed && total.workspaceId === workspaceId) {
      total.count++;
      return;
    }
  }
  totals.push({ workspaceId, time, namespaceId, identifier, passed, count: 1 });
}

/**
 * One batch of decisions in the caller's transaction: the raw decisions (COPY), then their
 * per-minute, hour, day and month rollups in one statement, from the batch's minute totals.
 */
async function writeDecisions(tx: EventTransaction, { rows: batch, totals }: EventRows<RatelimitTotals>) {
  await tx.copyIn(COPY_DECISIONS, batch);
  const minutes = allTotals(totals);
  const texts = (key: 'workspaceId' | 'namespaceId' | 'identifier') =>
    textArrayLiteral(minutes.map((total) => total[key]));
  const scalars = (key: 'time' | 'passed' | 'count') => scalarArrayLiteral(minutes.map((total) => total[key]));
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

/** Rate-limit decisions, written to ratelimit_events and its rollups. */
export const ratelimitTable: EventTable<RatelimitEvent, RatelimitTotals> = {
  row: decisionRow,
  parse: parseDecisionRow,
  noTotals: () => new Map(),
  count: countDecision,
  write: writeDecisions,
};
