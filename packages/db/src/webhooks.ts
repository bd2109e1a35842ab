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

/** A delivery a node has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  /** This attempt's number, from 1. */
  attempt: number;
  eventId: string;
  payload: string;
  endpointId: string;
  url: string;
  secret: string;
}

export interface ClaimOptions {
  /** How many deliveries to claim at most. */
  count: number;
  /**
   * How many of each workspace's oldest due deliveries are candidates; those already claimed
   * elsewhere count, so a workspace has at most about this many under way across all nodes.
   */
  perWorkspace: number;
  /** Workspaces to pass over (those at their bound of deliveries under way on the caller's node). */
  skipWorkspaces?: readonly string[];
}

/**
 * Locks up to `count` due deliveries in `tx` (SKIP LOCKED: other nodes claim others) for the
 * caller to send and record in the same transaction. Workspaces take turns: the candidates are the
 * `perWorkspace` oldest due deliveries of each workspace with pending ones (found one index probe
 * per workspace), taken first by their rank within their workspace, then by due time, so a
 * workspace's backlog does not delay another's next event by more than a turn (docs/webhooks.md,
 * Delivery). A node killed mid-delivery rolls back: its deliveries are free again at once and no
 * attempt of theirs counts. Deliveries of a disabled endpoint wait, and go out if it is enabled
 * again. The endpoint is held too (KEY SHARE: its updates and other nodes' deliveries go on), so
 * that deleting it waits for the delivery rather than take the endpoint first and deadlock with the
 * attempt's update of it; an endpoint being deleted is skipped.
 */
export async function claimDueDeliveries(tx: EntityManager, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const claimed = await rows<{
    id: string;
    workspace_id: string;
    attempts: number;
    event_id: string;
    payload: string;
    endpoint_id: string;
    url: string;
    secret: string;
  }>(
    tx,
    sql`with recursive pending_workspaces as (
          (select workspace_id from webhook_deliveries where state = 'pending' order by workspace_id limit 1)
          union all
          select (select d.workspace_id from webhook_deliveries d
                   where d.state = 'pending' and d.workspace_id > w.workspace_id
                   order by d.workspace_id limit 1)
            from pending_workspaces w where w.workspace_id is not null
        ),
        candidates as (
          select c.id, c.next_attempt_at, c.turn
            from pending_workspaces w
            cross join lateral (
              select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at) as turn
                from webhook_deliveries d join webhook_endpoints ep on ep.id = d.endpoint_id
               where d.state = 'pending' and d.workspace_id = w.workspace_id
                 and d.next_attempt_at <= now() and ep.enabled
               order by d.next_attempt_at
               limit ${options.perWorkspace}
            ) c
           where w.workspace_id is not null
             and w.workspace_id <> all(${[...(options.skipWorkspaces ?? [])]}::text[])
        ),
        claimed as (
          select d.id, d.workspace_id, d.attempts, d.event_id, ep.id as endpoint_id, ep.url, ep.secret,
                 c.turn, c.next_attempt_at
            from candidates c
            join webhook_deliveries d on d.id = c.id
            join webhook_endpoints ep on ep.id = d.endpoint_id
           where d.state = 'pending' and d.next_attempt_at <= now() and ep.enabled
           order by c.turn, c.next_attempt_at
           limit ${options.count}
           for update of d skip locked
           for key share of ep skip locked
        )
        -- The events of the claimed deliveries alone, each by its key.
        select claimed.*, ev.payload::text as payload
          from claimed join webhook_events ev on ev.id = claimed.event_id
         order by claimed.turn, claimed.next_attempt_at`,
  );
  return claimed.map((row) => ({
    id: row.id,
    workspaceId: row.workspace_id,
    attempt: row.attempts + 1,
    eventId: row.event_id,
    payload: row.payload,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
  }));
}

/** Whether any delivery is due now (to an enabled endpoint). */
export async function hasDueDeliveries(em: EntityManager): Promise<boolean> {
  const found = await rows(
    em,
    sql`select 1 from webhook_deliveries d join webhook_endpoints ep on ep.id = d.endpoint_id
         where d.state = 'pending' and d.next_attempt_at <= now() and ep.enabled limit 1`,
  );
  return found.length > 0;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  succeeded: boolean;
  /** When to try again after a failure; null when the attempts ran out. */
  retryAt: number | null;
  /** An endpoint failing without a success for longer than this is disabled. */
  disableAfterMs: number;
}

/** What the log says of an attempt whose answer could not be stored (recordDeliveryAttempt). */
export const ATTEMPT_NOT_RECORDED = 'the answer could not be recorded';

/**
 * Logs an attempt and moves its delivery on, in the claiming transaction `tx`; a success ends the
 * endpoint's failure streak, a streak longer than `disableAfterMs` disables it and says why. When
 * the database refuses what the attempt got, the attempt is logged again without it
 * (ATTEMPT_NOT_RECORDED), inside a savepoint: the delivery moves on all the same, so a receiver's
 * answer can never roll the claim back and have the delivery sent again at once, unlogged.
 * Answers what the database refused, for the caller to report; nothing when all was recorded.
 */
export async function recordDeliveryAttempt(
  tx: EntityManager,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
): Promise<{ refused?: unknown }> {
  await rows(tx, sql`savepoint record_attempt`);
  try {
    await writeAttempt(tx, delivery, outcome);
    await rows(tx, sql`release savepoint record_attempt`);
    return {};
  } catch (refused) {
    await rows(tx, sql`rollback to savepoint record_attempt`);
    await writeAttempt(tx, delivery, { ...outcome, error: ATTEMPT_NOT_RECORDED, responseBody: null });
    return { refused };
  }
}

async function writeAttempt(tx: EntityManager, delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
  const state = outcome.succeeded ? 'succeeded' : outcome.retryAt === null ? 'failed' : 'pending';
  const retryAt = outcome.retryAt === null ? null : new Date(outcome.retryAt);
  await rows(
    tx,
    sql`insert into webhook_attempts (delivery_id, attempted_at, status_code, error, response_body, duration_ms)
        values (${delivery.id}, now(), ${outcome.statusCode}, ${outcome.error}, ${outcome.responseBody}, ${outcome.durationMs})`,
  );
  await rows(
    tx,
    sql`update webhook_deliveries
           set state = ${state}, attempts = ${delivery.attempt},
               next_attempt_at = coalesce(${retryAt}::timestamptz, next_attempt_at),
               completed_at = case when ${state} = 'pending' then null else now() end
         where id = ${delivery.id}`,
  );
  if (outcome.succeeded) {
    await rows(tx, sql`update webhook_endpoints set failing_since = null where id = ${delivery.endpointId}`);
    return;
  }
  const answer = outcome.statusCode === null ? (outcome.error ?? 'no answer') : `HTTP ${outcome.statusCode}`;
  const tooLong = sql`coalesce(failing_since, now()) <= now() - ${outcome.disableAfterMs} * interval '1 millisecond'`;
  await rows(
    tx,
    sql`update webhook_endpoints
           set failing_since = coalesce(failing_since, now()),
               enabled = enabled and not (${tooLong}),
               disabled_reason = case
                 when enabled and ${tooLong}
                 then 'Disabled after failing since ' || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')
                      || ' without a success; the last attempt got: ' || ${answer}
                 else disabled_reason end
         where id = ${delivery.endpointId}`,
  );
}

/**
 * The expiry events that are due: `key.expiring` for keys expiring within an endpoint's notice,
 * `key.expired` for keys whose expiry passed; each once per endpoint, key and expiry date (a key
 * given a new expiry is announced again). Idempotent, so every node may run it.
 */
export async function enqueueDueExpiryEvents(em: EntityManager): Promise<number> {
  const [result] = await rows<{ count: string }>(
    em,
    sql`with candidates as (
          select e.id as endpoint_id, e.workspace_id, k.id as key_id, k.api_id, k.expires_at,
                 case when k.expires_at <= now() then 'key.expired' else 'key.expiring' end as type
            from webhook_endpoints e
            join keys k on k.workspace_id = e.workspace_id
           where e.enabled and k.deleted_at is null and k.expires_at is not null
             and k.expires_at <= now() + e.expiring_notice_ms * interval '1 millisecond'
             and k.expires_at > e.created_at - interval '1 day'
             and (e.api_ids is null or e.api_ids @> array[k.api_id::text])
             and e.event_types && array['*', case when k.expires_at <= now() then 'key.expired' else 'key.expiring' end]
        ),
        noticed as (
          insert into webhook_key_notices (endpoint_id, key_id, type, expires_at)
          select endpoint_id, key_id, type, expires_at from candidates
          on conflict do nothing
          returning endpoint_id, key_id, type, expires_at
        )
        select count(*) from (
          select keyplane_enqueue_webhook_event(c.workspace_id, n.type, c.api_id,
                   jsonb_build_object('keyId', n.key_id, 'apiId', c.api_id,
                     'expires', (extract(epoch from n.expires_at) * 1000)::bigint),
                   n.endpoint_id)
            from noticed n join candidates c using (endpoint_id, key_id, type, expires_at)
        ) enqueued`,
  );
  return Number(result?.count ?? 0);
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
