import { createEventRecorder, type EventRecorder, type RecorderOptions } from './eventRecorder.ts';
import type { Orm } from './orm.ts';
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

async function writeRatelimitEvents(orm: Orm, batch: RatelimitEvent[]): Promise<void> {
  const column = <K extends keyof RatelimitEvent>(key: K) => batch.map((event) => event[key]);
  await rows(
    orm.em.fork(),
    sql`
      insert into ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                    remaining, override_id, latency_ms)
      select to_timestamp(t.time / 1000.0), t.request_id, t.workspace_id, t.namespace_id, t.identifier, t.passed,
             t.limit_, t.remaining, t.override_id, t.latency_ms
      from unnest(${column('time')}::float8[], ${column('requestId')}::text[], ${column('workspaceId')}::text[],
                  ${column('namespaceId')}::text[], ${column('identifier')}::text[], ${column('passed')}::bool[],
                  ${column('limit')}::int[], ${column('remaining')}::int[], ${column('overrideId')}::text[],
                  ${column('latencyMs')}::float8[])
        as t(time, request_id, workspace_id, namespace_id, identifier, passed, limit_, remaining, override_id,
             latency_ms)`,
  );
}

export type RatelimitRecorder = EventRecorder<RatelimitEvent>;

/** Every ratelimit decision, recorded for analytics in batches off the request path. */
export function createRatelimitRecorder(orm: Orm, options: RecorderOptions = {}): RatelimitRecorder {
  return createEventRecorder(orm, writeRatelimitEvents, options);
}
