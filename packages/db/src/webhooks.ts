import { newId } from '@keyplane/core';
import { amongIds, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

/** What a change tells the outbox (docs/webhooks.md): written in the change's own transaction. */
export interface WebhookEventEntry {
  workspaceId: string;
  type: string;
  /** The API the event belongs to, for endpoints that want only some APIs; null for workspace events. */
  apiId: string | null;
  /** Ids and the fields that matter; never key material. */
  data: Record<string, unknown>;
}

/**
 * Writes the event and one delivery per endpoint that wants it (keyplane_enqueue_webhook_event),
 * in `tx`: it exists exactly when the change does. Writes nothing when no endpoint wants it.
 */
export async function enqueueWebhookEvent(tx: EntityManager, entry: WebhookEventEntry): Promise<void> {
  await rows(
    tx,
    sql`select keyplane_enqueue_webhook_event(${entry.workspaceId}, ${entry.type}, ${entry.apiId}, ${JSON.stringify(entry.data)}::jsonb)`,
  );
}

/**
 * Sends one event to one endpoint only, whatever types it wants: the `webhooks.sendTest` event.
 * False, writing nothing, when the workspace has no such endpoint (or it was deleted meanwhile:
 * the endpoint is locked against deletion while the event is written).
 */
export async function enqueueTestEvent(
  tx: EntityManager,
  workspaceId: string,
  endpointId: string,
  data: Record<string, unknown>,
): Promise<boolean> {
  const eventId = newId('webhookEvent');
  const written = await rows(
    tx,
    sql`with endpoint as (
          select id from webhook_endpoints where workspace_id = ${workspaceId} and id = ${endpointId} for key share
        ),
        event as (
          insert into webhook_events (id, workspace_id, type, payload, created_at)
          select ${eventId}, ${workspaceId}, 'webhook.test',
                 jsonb_build_object('type', 'webhook.test',
                   'timestamp', to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   'data', ${JSON.stringify(data)}::jsonb),
                 clock_timestamp()
            from endpoint
          returning id
        )
        insert into webhook_deliveries (id, event_id, endpoint_id, workspace_id, state, attempts, next_attempt_at, created_at)
        select ${newId('webhookDelivery')}, event.id, endpoint.id, ${workspaceId}, 'pending', 0, clock_timestamp(), clock_timestamp()
          from event, endpoint
        returning id`,
  );
  return written.length > 0;
}

export interface WebhookEndpointRecord {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  apiIds: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  creditsLowThreshold: number | null;
  creditsLowPercent: number | null;
  expiringNoticeMs: number;
  createdAt: number;
  updatedAt: number | null;
}

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  api_ids: string[] | null;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: number | null;
  credits_low_threshold: number | null;
  credits_low_percent: number | null;
  expiring_notice_ms: string;
  created_at: number;
  updated_at: number | null;
}

// Times as unix ms: raw statements get timestamps back as strings.
const ENDPOINT_COLUMNS = sql`id, url, description, event_types, api_ids, enabled, disabled_reason,
  ${epochMs('failing_since')} as failing_since, credits_low_threshold, credits_low_percent, expiring_notice_ms,
  ${epochMs('created_at')} as created_at, ${epochMs('updated_at')} as updated_at`;

function endpointRecord(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    apiIds: row.api_ids,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    creditsLowThreshold: row.credits_low_threshold,
    creditsLowPercent: row.credits_low_percent,
    expiringNoticeMs: Number(row.expiring_notice_ms),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface WebhookEndpointSettings {
  url: string;
  description: string | null;
  eventTypes: string[];
  apiIds: string[] | null;
  enabled: boolean;
  creditsLowThreshold: number | null;
  creditsLowPercent: number | null;
  expiringNoticeMs: number;
}

/**
 * Creates an endpoint unless the workspace already has `maxEndpoints` (docs/contract.md#limits):
 * undefined then, writing nothing. The count and the insert run under a lock of the workspace's
 * endpoints, so concurrent creations cannot pass the bound together.
 */
export async function createWebhookEndpoint(
  em: EntityManager,
  workspaceId: string,
  settings: WebhookEndpointSettings,
  secret: string,
  maxEndpoints: number,
): Promise<WebhookEndpointRecord | undefined> {
  return em.transactional(async (tx) => {
    await rows(tx, sql`select pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${workspaceId}`}, 0))`);
    const [row] = await rows<EndpointRow>(
      tx,
      sql`insert into webhook_endpoints (id, workspace_id, url, description, event_types, api_ids, secret, enabled,
            credits_low_threshold, credits_low_percent, expiring_notice_ms, created_at)
          select ${newId('webhookEndpoint')}, ${workspaceId}, ${settings.url}, ${settings.description},
            ${settings.eventTypes}::text[], ${settings.apiIds}::text[], ${secret}, ${settings.enabled},
            ${settings.creditsLowThreshold}, ${settings.creditsLowPercent}, ${settings.expiringNoticeMs}, now()
          where (select count(*) from webhook_endpoints where workspace_id = ${workspaceId}) < ${maxEndpoints}
          returning ${ENDPOINT_COLUMNS}`,
    );
    return row && endpointRecord(row);
  });
}

/** A page of the workspace's endpoints in id (creation) order. */
export async function listWebhookEndpoints(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
): Promise<WebhookEndpointRecord[]> {
  const found = await rows<EndpointRow>(
    em,
    sql`select ${ENDPOINT_COLUMNS} from webhook_endpoints
         where workspace_id = ${workspaceId} and ${startingAt('id', query.fromId)} and ${amongIds('id', query.ids)}
         order by id limit ${query.count}`,
  );
  return found.map(endpointRecord);
}

export async function findWebhookEndpoint(
  em: EntityManager,
  workspaceId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord | undefined> {
  const [row] = await rows<EndpointRow>(
    em,
    sql`select ${ENDPOINT_COLUMNS} from webhook_endpoints where workspace_id = ${workspaceId} and id = ${endpointId}`,
  );
  return row && endpointRecord(row);
}

/**
 * Changes what `changes` names; enabling it again clears why the service disabled it and its
 * failure streak. Undefined when the workspace has no such endpoint.
 */
export async function updateWebhookEndpoint(
  em: EntityManager,
  workspaceId: string,
  endpointId: string,
  changes: Partial<WebhookEndpointSettings>,
): Promise<WebhookEndpointRecord | undefined> {
  const set = (column: string, value: unknown, cast = '') =>
    value === undefined ? sql.raw(column) : sql`${value}${sql.raw(cast)}`;
  const [row] = await rows<EndpointRow>(
    em,
    sql`update webhook_endpoints set
          url = ${set('url', changes.url)},
          description = ${set('description', changes.description)},
          event_types = ${set('event_types', changes.eventTypes, '::text[]')},
          api_ids = ${set('api_ids', changes.apiIds, '::text[]')},
          enabled = ${set('enabled', changes.enabled)},
          disabled_reason = case when ${changes.enabled === true} then null else disabled_reason end,
          failing_since = case when ${changes.enabled === true} then null else failing_since end,
          credits_low_threshold = ${set('credits_low_threshold', changes.creditsLowThreshold)},
          credits_low_percent = ${set('credits_low_percent', changes.creditsLowPercent)},
          expiring_notice_ms = ${set('expiring_notice_ms', changes.expiringNoticeMs)},
          updated_at = now()
        where workspace_id = ${workspaceId} and id = ${endpointId}
        returning ${ENDPOINT_COLUMNS}`,
  );
  return row && endpointRecord(row);
}

/** False when the workspace has no such endpoint. Its events' deliveries go with it. */
export async function deleteWebhookEndpoint(em: EntityManager, workspaceId: string, endpointId: string) {
  const deleted = await rows(
    em,
    sql`delete from webhook_endpoints where workspace_id = ${workspaceId} and id = ${endpointId} returning id`,
  );
  return deleted.length > 0;
}

export async function setWebhookSecret(em: EntityManager, workspaceId: string, endpointId: string, secret: string) {
  const updated = await rows(
    em,
    sql`update webhook_endpoints set secret = ${secret}, updated_at = now()
        where workspace_id = ${workspaceId} and id = ${endpointId} returning id`,
  );
  return updated.length > 0;
}

export interface WebhookAttemptRecord {
  attemptedAt: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: WebhookAttemptRecord[];
  nextAttemptAt: number | null;
  createdAt: number;
  completedAt: number | null;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  payload: Record<string, unknown>;
  state: WebhookDeliveryRecord['state'];
  next_attempt_at: number;
  created_at: number;
  completed_at: number | null;
  attempts: {
    attemptedAt: string;
    statusCode: number | null;
    error: string | null;
    responseBody: string | null;
    durationMs: number;
  }[];
}

/** Newest first; a page holds the deliveries with ids at or below the cursor. */
export async function listWebhookDeliveries(
  em: EntityManager,
  workspaceId: string,
  query: { endpointId?: string; fromId?: string; count: number },
): Promise<WebhookDeliveryRecord[]> {
  const found = await rows<DeliveryRow>(
    em,
    sql`select d.id, d.endpoint_id, d.event_id, e.type, e.payload, d.state, ${epochMs('d.next_attempt_at')} as next_attempt_at,
               ${epochMs('d.created_at')} as created_at, ${epochMs('d.completed_at')} as completed_at,
               coalesce((select jsonb_agg(jsonb_build_object('attemptedAt', a.attempted_at, 'statusCode', a.status_code,
                           'error', a.error, 'responseBody', a.response_body, 'durationMs', a.duration_ms) order by a.id)
                         from webhook_attempts a where a.delivery_id = d.id), '[]'::jsonb) as attempts
          from webhook_deliveries d join webhook_events e on e.id = d.event_id
         where d.workspace_id = ${workspaceId}
           and (${query.endpointId ?? null}::text is null or d.endpoint_id = ${query.endpointId ?? null})
           and (${query.fromId ?? null}::text is null or d.id <= ${query.fromId ?? null})
         order by d.id desc
         limit ${query.count}`,
  );
  return found.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.type,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts.map((attempt) => ({ ...attempt, attemptedAt: new Date(attempt.attemptedAt).getTime() })),
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }));
}

/** Which endpoint a delivery of the workspace went to; undefined when the workspace has no such delivery. */
export async function findWebhookDelivery(
  em: EntityManager,
  workspaceId: string,
  deliveryId: string,
): Promise<{ id: string; endpointId: string } | undefined> {
  const [row] = await rows<{ id: string; endpoint_id: string }>(
    em,
    sql`select id, endpoint_id from webhook_deliveries where workspace_id = ${workspaceId} and id = ${deliveryId}`,
  );
  return row && { id: row.id, endpointId: row.endpoint_id };
}

/** A new delivery of a delivered (or failed) one's event to the same endpoint; undefined when there is no such delivery. */
export async function redeliverWebhook(
  em: EntityManager,
  workspaceId: string,
  deliveryId: string,
): Promise<string | undefined> {
  const [created] = await rows<{ id: string }>(
    em,
    sql`insert into webhook_deliveries (id, event_id, endpoint_id, workspace_id, state, attempts, next_attempt_at, created_at)
        select ${newId('webhookDelivery')}, event_id, endpoint_id, workspace_id, 'pending', 0, now(), now()
          from webhook_deliveries where workspace_id = ${workspaceId} and id = ${deliveryId}
        returning id`,
  );
  return created?.id;
}

/** A key's event, with the ids every key event carries. */
export function enqueueKeyEvent(
  tx: EntityManager,
  type: string,
  key: { workspaceId: string; apiId: string; id: string },
  data: Record<string, unknown>,
): Promise<void> {
  return enqueueWebhookEvent(tx, {
    workspaceId: key.workspaceId,
    type,
    apiId: key.apiId,
    data: { keyId: key.id, apiId: key.apiId, ...data },
  });
}

/** `key.credits.low` and `key.credits.exhausted` for a balance a change moved (keyplane_credit_crossings). */
export async function enqueueCreditCrossings(
  tx: EntityManager,
  key: { workspaceId: string; apiId: string; id: string },
  before: number | null,
  after: number | null,
  refillAmount: number | null,
): Promise<void> {
  if (before === null || after === null || after >= before) return;
  await rows(
    tx,
    sql`select keyplane_credit_crossings(${key.workspaceId}, ${key.apiId}, ${key.id}, ${before}, ${after}, ${refillAmount})`,
  );
}
