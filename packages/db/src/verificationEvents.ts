import { createEventRecorder, type EventRecorder, type RecorderOptions } from './eventRecorder.ts';
import type { Orm } from './orm.ts';
import { rows, sql } from './sql.ts';

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

/** One batch of verification events, and `lastUsedAt` of their keys. */
async function writeVerifications(orm: Orm, batch: VerificationEvent[]): Promise<void> {
  const column = <K extends keyof VerificationEvent>(key: K) => batch.map((event) => event[key]);
  await rows(
    orm.em.fork(),
    sql`
      insert into key_verifications (time, request_id, workspace_id, api_id, key_id, identity_id, external_id,
                                     outcome, tags, spent_credits, latency_ms)
      select to_timestamp(t.time / 1000.0), t.request_id, t.workspace_id, t.api_id, t.key_id, t.identity_id,
             t.external_id, t.outcome, tg.tags, t.spent_credits, t.latency_ms
      from unnest(${column('time')}::float8[], ${column('requestId')}::text[], ${column('workspaceId')}::text[],
                  ${column('apiId')}::text[], ${column('keyId')}::text[], ${column('identityId')}::text[],
                  ${column('externalId')}::text[], ${column('outcome')}::text[],
                  ${batch.map((event) => JSON.stringify(event.tags))}::jsonb[],
                  ${column('spentCredits')}::bigint[], ${column('latencyMs')}::float8[])
        as t(time, request_id, workspace_id, api_id, key_id, identity_id, external_id, outcome, tags_json,
             spent_credits, latency_ms)
        cross join lateral (select array(select jsonb_array_elements_text(t.tags_json)) as tags) tg`,
  );
  // `lastUsedAt` of a key comes from the same batch: approximate to the flush interval, one statement.
  await rows(
    orm.em.fork(),
    sql`
      update keys k set last_used_at = greatest(k.last_used_at, u.used_at)
      from (select key_id, to_timestamp(max(time) / 1000.0) as used_at
            from unnest(${column('keyId')}::text[], ${column('time')}::float8[]) as t(key_id, time)
            group by key_id) u
      where k.id = u.key_id`,
  );
}

export type VerificationRecorder = EventRecorder<VerificationEvent>;

export function createVerificationRecorder(orm: Orm, options: RecorderOptions = {}): VerificationRecorder {
  return createEventRecorder(orm, writeVerifications, options);
}
