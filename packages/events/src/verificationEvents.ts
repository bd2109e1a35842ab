import {
  type EntityManager,
  parseTextArrayLiteral,
  rows,
  scalarArrayLiteral,
  sql,
  textArrayLiteral,
  typed,
  unnestAs,
} from '@keyplane/db';
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

export interface VerificationEvent {
  time: number;
  requestId: string;
  workspaceId: string;
  apiId: string;
  keyId: string;
  identityId: string | null;
  externalId: string | null;
  outcome: string;
  tags: string[];
  spentCredits: number;
  latencyMs: number;
}

/**
 * Adds the batch's counts to one rollup table. Rows are locked in key order so that two nodes
 * flushing at once wait for each other instead of deadlocking.
 */
function verificationRollup(granularity: Granularity) {
  return sql`
    insert into ${sql.table(rollupTable('key_verifications', granularity))} as r
      (workspace_id, time, key_id, outcome, api_id, identity_id, external_id, count, spent_credits, latency_sum)
    select workspace_id, ${bucketStart(granularity, sql.ref('time'))}, key_id, outcome, api_id, identity_id,
           external_id, sum(count), sum(spent_credits), sum(latency_sum)
    from minute_totals
    group by 1, 2, 3, 4, 5, 6, 7
    order by 1, 2, 3, 4, 5, 6, 7
    on conflict (workspace_id, time, key_id, outcome, api_id, identity_id, external_id) do update
      set count = r.count + excluded.count,
          spent_credits = r.spent_credits + excluded.spent_credits,
          latency_sum = r.latency_sum + excluded.latency_sum`;
}

/** A verification as its COPY row, in the column order of {@link COPY_VERIFICATIONS}. */
function verificationRow(event: VerificationEvent): string {
  return (
    `${copyTimestamp(event.time)}\t${copyText(event.requestId)}\t${copyText(event.workspaceId)}\t` +
    `${copyText(event.apiId)}\t${copyText(event.keyId)}\t${copyText(event.identityId)}\t` +
    `${copyText(event.externalId)}\t${copyText(event.outcome)}\t${copyText(textArrayLiteral(event.tags))}\t` +
    `${event.spentCredits}\t${copyMilliseconds(event.latencyMs)}`
  );
}

function parseVerificationRow(row: string): VerificationEvent | undefined {
  const [time, requestId, workspaceId, apiId, keyId, identityId, externalId, outcome, tags, spentCredits, latencyMs] =
    readCopyRow(row, 11) ?? [];
  const tagList = parseTextArrayLiteral(tags ?? '');
  if (!time || !requestId || !workspaceId || !apiId || !keyId || !outcome || !spentCredits || !latencyMs)
    return undefined;
  if (!tagList || tagList.includes(null)) return undefined;
  const event = {
    time: readCopyTimestamp(time),
    requestId,
    workspaceId,
    apiId,
    keyId,
    identityId: identityId ?? null,
    externalId: externalId ?? null,
    outcome,
    tags: tagList as string[],
    spentCredits: Number(spentCredits),
    latencyMs: Number(latencyMs),
  };
  return Number.isNaN(event.time + event.spentCredits + event.latencyMs) ? undefined : event;
}

const COPY_VERIFICATIONS = `copy key_verifications (time, request_id, workspace_id, api_id, key_id, identity_id, external_id,
                                                outcome, tags, spent_credits, latency_ms) from stdin`;

interface MinuteTotal {
  workspaceId: string;
  time: number;
  keyId: string;
  outcome: string;
  apiId: string;
  /** '' for none: rollup rows are keyed by it. */
  identityId: string;
  externalId: string;
  count: number;
  spentCredits: number;
  latencySum: number;
}

export interface VerificationTotals {
  /** Per minute bucket, key, outcome, API and identity, filed by API and key. */
  readonly minutes: MinuteTotals<MinuteTotal>;
  /** When each key was last used. */
  readonly lastUses: Map<string, number>;
}

function countVerification({ minutes, lastUses }: VerificationTotals, event: VerificationEvent): void {
  const time = minuteStart(event.time);
  const identityId = event.identityId ?? '';
  const externalId = event.externalId ?? '';
  const totals = totalsOf(minutes, event.apiId, event.keyId);
  let total: MinuteTotal | undefined;
  for (let index = totals.length - 1; index >= 0; index--) {
    const candidate = totals[index] as MinuteTotal;
    if (candidate.time !== time) break;
    if (
      candidate.outcome === event.outcome &&
      candidate.identityId === identityId &&
      candidate.externalId === externalId &&
      candidate.workspaceId === event.workspaceId
    ) {
      total = candidate;
      break;
    }
  }
  if (total) {
    total.count++;
    total.spentCredits += event.spentCredits;
    total.latencySum += event.latencyMs;
  } else {
    totals.push({
      workspaceId: event.workspaceId,
      time,
      keyId: event.keyId,
      outcome: event.outcome,
      apiId: event.apiId,
      identityId,
      externalId,
      count: 1,
      spentCredits: event.spentCredits,
      latencySum: event.latencyMs,
    });
  }
  const lastUse = lastUses.get(event.keyId);
  if (lastUse === undefined || lastUse < event.time) lastUses.set(event.keyId, event.time);
}

/**
 * One batch of verification events, in the caller's transaction: the raw events (COPY), their
 * per-minute, hour, day and month rollups (one statement, from the batch's minute totals), then
 * `lastUsedAt` of their keys. A failed batch leaves nothing behind, so its retry counts nothing
 * twice; COPY fails as a whole, so a refused value fails the batch (see writeDroppingRefused in
 * packages/background).
 */
async function writeVerifications(tx: EventTransaction, { rows: batch, totals }: EventRows<VerificationTotals>) {
  await tx.copyIn(COPY_VERIFICATIONS, batch);
  const minutes = allTotals(totals.minutes);
  const texts = (key: 'workspaceId' | 'keyId' | 'outcome' | 'apiId' | 'identityId' | 'externalId') =>
    textArrayLiteral(minutes.map((total) => total[key]));
  const numbers = (key: 'time' | 'count' | 'spentCredits' | 'latencySum') =>
    scalarArrayLiteral(minutes.map((total) => total[key]));
  // Raw: one statement upserts every rollup (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
  await rows(
    tx.em,
    sql`
    with minute_totals as (
      select * from unnest(${texts('workspaceId')}::text[], ${numbers('time')}::int8[], ${texts('keyId')}::text[],
                           ${texts('outcome')}::text[], ${texts('apiId')}::text[], ${texts('identityId')}::text[],
                           ${texts('externalId')}::text[], ${numbers('count')}::int8[], ${numbers('spentCredits')}::int8[],
                           ${numbers('latencySum')}::float8[])
        as t(workspace_id, time, key_id, outcome, api_id, identity_id, external_id, count, spent_credits, latency_sum)
    ),
    ${rollupUpserts(verificationRollup)}
    select count(*) from minute_totals`,
  );
  // Last, so the key rows (which credit spends lock too) are held only until the commit right after.
  // lastUsedAt comes from the same batch: approximate to the flush interval.
  await typed(tx.em)
    .updateTable('keys as k')
    .from(
      unnestAs('u', {
        key_id: ['text', textArrayLiteral([...totals.lastUses.keys()])],
        time: ['float8', scalarArrayLiteral([...totals.lastUses.values()])],
      }),
    )
    .set({ last_used_at: sql<Date>`greatest(k.last_used_at, to_timestamp(u.time / 1000.0))` })
    .whereRef('k.id', '=', 'u.key_id')
    .execute();
}

/** Verifications, written to key_verifications and its rollups. */
export const verificationTable: EventTable<VerificationEvent, VerificationTotals> = {
  row: verificationRow,
  parse: parseVerificationRow,
  noTotals: () => ({ minutes: new Map(), lastUses: new Map() }),
  count: countVerification,
  write: writeVerifications,
};

/** A key's verification as its page lists it. */
export interface KeyVerificationRecord {
  time: number;
  requestId: string;
  outcome: string;
  tags: string[];
  spentCredits: number;
  latencyMs: number;
}

/**
 * A key's latest verifications, newest first (index on key and time, in every day's partition).
 * Events outlive their keys, so the workspace is checked here too, not only by the key lookup.
 */
export async function listKeyVerifications(
  em: EntityManager,
  workspaceId: string,
  keyId: string,
  count: number,
): Promise<KeyVerificationRecord[]> {
  const found = await typed(em)
    .selectFrom('key_verifications')
    .select(['time', 'request_id', 'outcome', 'tags', 'spent_credits', 'latency_ms'])
    .where('key_id', '=', keyId)
    .where('workspace_id', '=', workspaceId)
    .orderBy('time', 'desc')
    .orderBy('id', 'desc')
    .limit(count)
    .execute();
  return found.map((event) => ({
    time: event.time.getTime(),
    requestId: event.request_id,
    outcome: event.outcome,
    tags: event.tags,
    spentCredits: event.spent_credits,
    // A double precision column: the driver may hand it over as text.
    latencyMs: Number(event.latency_ms),
  }));
}
