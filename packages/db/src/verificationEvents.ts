import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { copyField, copyTimestamp, type EventTransaction } from './eventTransaction.ts';
import { bucketStart, type Granularity, groupTotals, minuteStart, rollupTable, rollupUpserts } from './rollups.ts';
import { type EntityManager, rows, sql, typed } from './sql.ts';

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

/** The raw events in COPY's text format, in the column order of {@link COPY_VERIFICATIONS}. */
function rawRows(batch: VerificationEvent[]): string {
  let text = '';
  for (const event of batch) {
    text += `${copyTimestamp(event.time)}\t${copyField(event.requestId)}\t${copyField(event.workspaceId)}\t${copyField(event.apiId)}\t${copyField(event.keyId)}\t${copyField(event.identityId)}\t${copyField(event.externalId)}\t${copyField(event.outcome)}\t${copyField(textArrayLiteral(event.tags))}\t${copyField(event.spentCredits)}\t${copyField(event.latencyMs)}\n`;
  }
  return text;
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

/** The batch's verifications summed per minute bucket, key, outcome, API and identity. */
function minuteTotals(batch: readonly VerificationEvent[]): MinuteTotal[] {
  return groupTotals<VerificationEvent, MinuteTotal>(
    batch,
    (event) =>
      `${event.workspaceId}\0${minuteStart(event.time)}\0${event.keyId}\0${event.outcome}\0${event.apiId}\0${event.identityId ?? ''}\0${event.externalId ?? ''}`,
    (event, total) => {
      if (total) {
        total.count++;
        total.spentCredits += event.spentCredits;
        total.latencySum += event.latencyMs;
        return total;
      }
      return {
        workspaceId: event.workspaceId,
        time: minuteStart(event.time),
        keyId: event.keyId,
        outcome: event.outcome,
        apiId: event.apiId,
        identityId: event.identityId ?? '',
        externalId: event.externalId ?? '',
        count: 1,
        spentCredits: event.spentCredits,
        latencySum: event.latencyMs,
      };
    },
  );
}

/** When each key of the batch was last used. */
function lastUses(batch: readonly VerificationEvent[]): { keyId: string; time: number }[] {
  return groupTotals<VerificationEvent, { keyId: string; time: number }>(
    batch,
    (event) => event.keyId,
    (event, last) => {
      if (!last) return { keyId: event.keyId, time: event.time };
      last.time = Math.max(last.time, event.time);
      return last;
    },
  );
}

/**
 * One batch of verification events, in the caller's transaction: the raw events (COPY), their
 * per-minute, hour, day and month rollups (one statement, from the batch's minute totals), then
 * `lastUsedAt` of their keys. A failed batch leaves nothing behind, so its retry counts nothing
 * twice; COPY fails as a whole, so a refused value fails the batch (see writeDroppingRefused in
 * packages/background).
 */
export async function writeVerificationEvents(tx: EventTransaction, batch: VerificationEvent[]): Promise<void> {
  await tx.copyIn(COPY_VERIFICATIONS, rawRows(batch));
  const totals = minuteTotals(batch);
  const texts = (key: 'workspaceId' | 'keyId' | 'outcome' | 'apiId' | 'identityId' | 'externalId') =>
    textArrayLiteral(totals.map((total) => total[key]));
  const numbers = (key: 'time' | 'count' | 'spentCredits' | 'latencySum') =>
    scalarArrayLiteral(totals.map((total) => total[key]));
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
  const used = lastUses(batch);
  await rows(
    tx.em,
    sql`
      update keys k set last_used_at = greatest(k.last_used_at, to_timestamp(u.time / 1000.0))
      from unnest(${textArrayLiteral(used.map((use) => use.keyId))}::text[],
                  ${scalarArrayLiteral(used.map((use) => use.time))}::float8[]) as u(key_id, time)
      where k.id = u.key_id`,
  );
}

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
