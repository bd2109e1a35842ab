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

export interface VerificationRecorder {
  record(event: VerificationEvent): void;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Buffers verification events and writes them in batches on a timer, off the request path.
 * A failed batch is put back in front of the buffer and retried with the next flush.
 */
export function createVerificationRecorder(
  orm: Orm,
  options: {
    flushIntervalMs?: number;
    maxBatch?: number;
    maxBuffered?: number;
    onError?: (error: unknown) => void;
  } = {},
): VerificationRecorder {
  const maxBatch = options.maxBatch ?? 1000;
  const maxBuffered = options.maxBuffered ?? 100_000;
  let buffer: VerificationEvent[] = [];
  let flushing: Promise<void> | undefined;

  const writeBatch = async (batch: VerificationEvent[]) => {
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
  };

  const flush = async (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      while (buffer.length > 0) {
        const batch = buffer.slice(0, maxBatch);
        buffer = buffer.slice(batch.length);
        try {
          await writeBatch(batch);
        } catch (error) {
          buffer = [...batch, ...buffer];
          options.onError?.(error);
          return;
        }
      }
    })().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 1000);
  timer.unref();

  return {
    record(event) {
      // Under a sustained database outage, keep the newest events rather than grow without bound.
      if (buffer.length >= maxBuffered) buffer.shift();
      buffer.push(event);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
