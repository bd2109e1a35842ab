import { type RatelimitDecision, rows, scalarArrayLiteral, sql, textArrayLiteral } from '@keyplane/db';
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

export type { RatelimitDecision };

/**
 * One `ratelimit.limit` or `ratelimit.multiLimit` call: its first decision in fields of its own, the
 * others (a multiLimit's) in `further`, all of them in one row (docs/architecture.md, Event tables).
 * `passed` is the call's: in a rejected call nothing was counted.
 */
export interface RatelimitEvent extends RatelimitDecision {
  time: number;
  requestId: string;
  workspaceId: string;
  passed: boolean;
  latencyMs: number;
  /** The call's decisions after the first, in request order; absent when it made one. */
  further?: RatelimitDecision[];
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

/** A call as its COPY row, in the column order of {@link COPY_CALLS}. */
function callRow(event: RatelimitEvent): string {
  const further = event.further === undefined || event.further.length === 0 ? null : JSON.stringify(event.further);
  return (
    `${copyTimestamp(event.time)}\t${copyText(event.requestId)}\t${copyText(event.workspaceId)}\t` +
    `${copyText(event.namespaceId)}\t${copyText(event.identifier)}\t${event.passed}\t${event.limit}\t` +
    `${event.remaining}\t${copyText(event.overrideId)}\t${copyMilliseconds(event.latencyMs)}\t${copyText(further)}`
  );
}

/** Its row's fields. */
const CALL_COLUMNS = 11;

function parseCallRow(row: string): RatelimitEvent | undefined {
  const fields = readCopyRow(row, CALL_COLUMNS);
  const [
    time,
    requestId,
    workspaceId,
    namespaceId,
    identifier,
    passed,
    limit,
    remaining,
    overrideId,
    latencyMs,
    further,
  ] = fields ?? [];
  if (!time || !requestId || !workspaceId || !namespaceId || typeof identifier !== 'string' || !limit || !remaining)
    return undefined;
  if ((passed !== 'true' && passed !== 'false') || !latencyMs) return undefined;
  const furtherDecisions = further ? parseFurther(further) : undefined;
  if (furtherDecisions === null) return undefined;
  const event: RatelimitEvent = {
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
    ...(furtherDecisions ? { further: furtherDecisions } : {}),
  };
  return Number.isNaN(event.time + event.limit + event.remaining + event.latencyMs) ? undefined : event;
}

/** The `further` field's decisions; null when it holds anything else (a damaged line). */
function parseFurther(text: string): RatelimitDecision[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const decisions: RatelimitDecision[] = [];
  for (const item of parsed as Partial<Record<keyof RatelimitDecision, unknown>>[]) {
    const { namespaceId, identifier, limit, remaining, overrideId } = item ?? {};
    if (typeof namespaceId !== 'string' || typeof identifier !== 'string') return null;
    if (typeof limit !== 'number' || typeof remaining !== 'number') return null;
    if (overrideId !== null && typeof overrideId !== 'string') return null;
    decisions.push({ namespaceId, identifier, limit, remaining, overrideId });
  }
  return decisions;
}

const COPY_CALLS = `copy ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                            remaining, override_id, latency_ms, further) from stdin`;

/**
 * One row per decision of the raw table, whichever of a call's row holds it: the first in the
 * row's own columns, the others in `further` (its position in the call is `decision`, from 0).
 */
export const RATELIMIT_DECISIONS = `
  select e.id, e.time, e.request_id, e.workspace_id, d.namespace_id, d.identifier, e.passed, d."limit",
         d.remaining, d.override_id, e.latency_ms, d.decision
  from ratelimit_events e
  cross join lateral (
    select e.namespace_id::text, e.identifier::text, e."limit", e.remaining, e.override_id::text, 0::int8
    union all
    select f.namespace_id, f.identifier, f."limit", f.remaining, f.override_id, f.decision
    from rows from (
      jsonb_to_recordset(e.further) as ("namespaceId" text, identifier text, "limit" int, remaining int, "overrideId" text)
    ) with ordinality as f (namespace_id, identifier, "limit", remaining, override_id, decision)
  ) as d (namespace_id, identifier, "limit", remaining, override_id, decision)`;

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

function countDecision(minutes: RatelimitTotals, event: RatelimitEvent, decision: RatelimitDecision): void {
  const time = minuteStart(event.time);
  const { workspaceId, passed } = event;
  const { namespaceId, identifier } = decision;
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

/** Counts each of a call's decisions. */
function countCall(minutes: RatelimitTotals, event: RatelimitEvent): void {
  countDecision(minutes, event, event);
  if (event.further) for (const decision of event.further) countDecision(minutes, event, decision);
}

/**
 * One batch of calls in the caller's transaction: their rows (COPY), then their decisions'
 * per-minute, hour, day and month rollups in one statement, from the batch's minute totals.
 */
async function writeCalls(tx: EventTransaction, { rows: batch, totals }: EventRows<RatelimitTotals>) {
  await tx.copyIn(COPY_CALLS, batch);
  const minutes = allTotals(totals);
  const texts = (key: 'workspaceId' | 'namespaceId' | 'identifier') =>
    textArrayLiteral(minutes.map((total) => total[key]));
  const scalars = (key: 'time' | 'passed' | 'count') => scalarArrayLiteral(minutes.map((total) => total[key]));
  // Raw: one statement upserts every rollup (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
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

/** Rate-limit calls, a row each in ratelimit_events, and their decisions counted in its rollups. */
export const ratelimitTable: EventTable<RatelimitEvent, RatelimitTotals> = {
  row: callRow,
  parse: parseCallRow,
  noTotals: () => new Map(),
  count: countCall,
  write: writeCalls,
};
