import { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
import { bucketStart, type Granularity, rollupTable, rollupUpserts } from './rollups.ts';
import { type EntityManager, rows, sql } from './sql.ts';

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

/** One batch of decisions and its per-minute, hour, day and month rollups, in one statement of the caller's transaction. */
export async function writeRatelimitEvents(tx: EntityManager, batch: RatelimitEvent[]): Promise<void> {
  const texts = (key: 'requestId' | 'workspaceId' | 'namespaceId' | 'identifier' | 'overrideId') =>
    textArrayLiteral(batch.map((event) => event[key]));
  const scalars = (key: 'time' | 'passed' | 'limit' | 'remaining' | 'latencyMs') =>
    scalarArrayLiteral(batch.map((event) => event[key]));
  await rows(
    tx,
    sql`
      with input as (
        select * from unnest(${scalars('time')}::float8[], ${texts('requestId')}::text[],
                             ${texts('workspaceId')}::text[], ${texts('namespaceId')}::text[],
                             ${texts('identifier')}::text[], ${scalars('passed')}::bool[], ${scalars('limit')}::int[],
                             ${scalars('remaining')}::int[], ${texts('overrideId')}::text[],
                             ${scalars('latencyMs')}::float8[])
          as t(time, request_id, workspace_id, namespace_id, identifier, passed, limit_, remaining, override_id,
               latency_ms)
      ),
      ${minuteTotals},
      ${rollupUpserts(ratelimitRollup)}
      insert into ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                    remaining, override_id, latency_ms)
      select to_timestamp(time / 1000.0), request_id, workspace_id, namespace_id, identifier, passed, limit_,
             remaining, override_id, latency_ms
      from input`,
  );
}
