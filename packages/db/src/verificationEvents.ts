import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { copyField, copyTimestamp, type EventTransaction } from './eventTransaction.ts';
import { bucketStart, type Granularity, rollupTable, rollupUpserts } from './rollups.ts';
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
 * The batch's totals per minute bucket and dimensions. Every rollup adds these up instead of
 * grouping each event again: one pass over the events instead of four.
 */
const minuteTotals = sql`
  minute_totals as (
    select workspace_id, ${bucketStart('minute', sql.ref('time'))} as time, key_id, outcome, api_id,
           coalesce(identity_id, '') as identity_id, coalesce(external_id, '') as external_id,
           count(*) as count, sum(spent_credits) as spent_credits, sum(latency_ms) as latency_sum
    from input
    group by 1, 2, 3, 4, 5, 6, 7
  )`;

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

/**
 * One batch of verification events, in the caller's transaction: the raw events (COPY), their
 * per-minute, hour, day and month rollups (one statement), then `lastUsedAt` of their keys. A
 * failed batch leaves nothing behind, so its retry counts nothing twice; COPY fails as a whole, so
 * a refused value fails the batch (see writeDroppingRefused in packages/background).
 */
export async function writeVerificationEvents(tx: EventTransaction, batch: VerificationEvent[]): Promise<void> {
  await tx.copyIn(COPY_VERIFICATIONS, rawRows(batch));
  const texts = (key: 'workspaceId' | 'apiId' | 'keyId' | 'identityId' | 'externalId' | 'outcome') =>
    textArrayLiteral(batch.map((event) => event[key]));
  const numbers = (key: 'time' | 'spentCredits' | 'latencyMs') => scalarArrayLiteral(batch.map((event) => event[key]));
  // Both statements take these two.
  const keyIds = texts('keyId');
  const times = numbers('time');
  await rows(
    tx.em,
    sql`
    with input as (
      select * from unnest(${times}::float8[], ${texts('workspaceId')}::text[], ${texts('apiId')}::text[],
                           ${keyIds}::text[], ${texts('identityId')}::text[], ${texts('externalId')}::text[],
                           ${texts('outcome')}::text[], ${numbers('spentCredits')}::bigint[],
                           ${numbers('latencyMs')}::float8[])
        as t(time, workspace_id, api_id, key_id, identity_id, external_id, outcome, spent_credits, latency_ms)
    ),
    ${minuteTotals},
    ${rollupUpserts(verificationRollup)}
    select count(*) from input`,
  );
  // Last, so the key rows (which credit spends lock too) are held only until the commit right after.
  // lastUsedAt comes from the same batch: approximate to the flush interval.
  await rows(
    tx.em,
    sql`
      update keys k set last_used_at = greatest(k.last_used_at, u.used_at)
      from (select key_id, to_timestamp(max(time) / 1000.0) as used_at
            from unnest(${keyIds}::text[], ${times}::float8[]) as t(key_id, time)
            group by key_id) u
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
