import { newId } from '@keyplane/core';
import type { Selectable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Database } from './entities/database.ts';
import { amongIds, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, rows, sql, typed, unixMs } from './sql.ts';

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
  await typed(tx)
    .selectNoFrom((eb) =>
      eb
        .fn<void>('keyplane_enqueue_webhook_event', [
          eb.val(entry.workspaceId),
          eb.val(entry.type),
          eb.val(entry.apiId),
          sql`${JSON.stringify(entry.data)}::jsonb`,
        ])
        .as('enqueued'),
    )
    .execute();
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
  // Raw: the endpoint's KEY SHARE lock and both inserts in one statement.
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

const endpointColumns = [
  'id',
  'url',
  'description',
  'event_types',
  'api_ids',
  'enabled',
  'disabled_reason',
  'failing_since',
  'credits_low_threshold',
  'credits_low_percent',
  'expiring_notice_ms',
  'created_at',
  'updated_at',
] as const;

type EndpointRow = Pick<Selectable<Database['webhook_endpoints']>, (typeof endpointColumns)[number]>;

function endpointRecord(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    apiIds: row.api_ids,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    failingSince: unixMs(row.failing_since),
    creditsLowThreshold: row.credits_low_threshold,
    creditsLowPercent: row.credits_low_percent,
    expiringNoticeMs: row.expiring_notice_ms,
    createdAt: row.created_at.getTime(),
    updatedAt: unixMs(row.updated_at),
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
    // Raw: an advisory lock, named by the workspace, that no row of it holds.
    await rows(tx, sql`select pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${workspaceId}`}, 0))`);
    const db = typed(tx);
    const counted = await db
      .selectFrom('webhook_endpoints')
      .select(sql<number>`count(*)::int`.as('total'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    if (counted.total >= maxEndpoints) return undefined;
    const row = await db
      .insertInto('webhook_endpoints')
      .values({
        id: newId('webhookEndpoint'),
        workspace_id: workspaceId,
        url: settings.url,
        description: settings.description,
        event_types: settings.eventTypes,
        api_ids: settings.apiIds,
        secret,
        enabled: settings.enabled,
        credits_low_threshold: settings.creditsLowThreshold,
        credits_low_percent: settings.creditsLowPercent,
        expiring_notice_ms: settings.expiringNoticeMs,
        created_at: sql<Date>`now()`,
      })
      .returning(endpointColumns)
      .executeTakeFirstOrThrow();
    return row && endpointRecord(row);
  });
}

/** A page of the workspace's endpoints in id (creation) order. */
export async function listWebhookEndpoints(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
): Promise<WebhookEndpointRecord[]> {
  const found = await typed(em)
    .selectFrom('webhook_endpoints')
    .select(endpointColumns)
    .where('workspace_id', '=', workspaceId)
    .where(startingAt('id', query.fromId))
    .where(amongIds('id', query.ids))
    .orderBy('id')
    .limit(query.count)
    .execute();
  return found.map(endpointRecord);
}

export async function findWebhookEndpoint(
  em: EntityManager,
  workspaceId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord | undefined> {
  const row = await typed(em)
    .selectFrom('webhook_endpoints')
    .select(endpointColumns)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', endpointId)
    .executeTakeFirst();
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
  const enabledAgain = changes.enabled === true ? { disabled_reason: null, failing_since: null } : {};
  const row = await typed(em)
    .updateTable('webhook_endpoints')
    .set({
      url: changes.url,
      description: changes.description,
      event_types: changes.eventTypes,
      api_ids: changes.apiIds,
      enabled: changes.enabled,
      ...enabledAgain,
      credits_low_threshold: changes.creditsLowThreshold,
      credits_low_percent: changes.creditsLowPercent,
      expiring_notice_ms: changes.expiringNoticeMs,
      updated_at: sql<Date>`now()`,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', endpointId)
    .returning(endpointColumns)
    .executeTakeFirst();
  return row && endpointRecord(row);
}

/** False when the workspace has no such endpoint. Its events' deliveries go with it. */
export async function deleteWebhookEndpoint(em: EntityManager, workspaceId: string, endpointId: string) {
  const deleted = await typed(em)
    .deleteFrom('webhook_endpoints')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', endpointId)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

export async function setWebhookSecret(em: EntityManager, workspaceId: string, endpointId: string, secret: string) {
  const updated = await typed(em)
    .updateTable('webhook_endpoints')
    .set({ secret, updated_at: sql<Date>`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', endpointId)
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
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

/** Newest first; a page holds the deliveries with ids at or below the cursor. */
export async function listWebhookDeliveries(
  em: EntityManager,
  workspaceId: string,
  query: { endpointId?: string; fromId?: string; count: number },
): Promise<WebhookDeliveryRecord[]> {
  let deliveries = typed(em)
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select((eb) => [
      // Renamed: values are converted by column name, and the attempts' `id` is a number.
      'd.id as deliveryId',
      'd.endpoint_id',
      'd.event_id',
      'e.type',
      'e.payload',
      'd.state',
      'd.next_attempt_at',
      'd.created_at',
      'd.completed_at',
      jsonArrayFrom(
        eb
          .selectFrom('webhook_attempts as a')
          .select([
            'a.attempted_at as attemptedAt',
            'a.status_code as statusCode',
            'a.error',
            'a.response_body as responseBody',
            'a.duration_ms as durationMs',
          ])
          .whereRef('a.delivery_id', '=', 'd.id')
          .orderBy('a.id'),
      ).as('attempt_log'),
    ])
    .where('d.workspace_id', '=', workspaceId);
  if (query.endpointId !== undefined) deliveries = deliveries.where('d.endpoint_id', '=', query.endpointId);
  if (query.fromId !== undefined) deliveries = deliveries.where('d.id', '<=', query.fromId);
  const found = await deliveries.orderBy('d.id', 'desc').limit(query.count).execute();
  return found.map((row) => ({
    id: row.deliveryId,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.type,
    payload: row.payload,
    state: row.state as WebhookDeliveryRecord['state'],
    attempts: row.attempt_log.map((attempt) => ({
      ...attempt,
      durationMs: Number(attempt.durationMs),
      attemptedAt: new Date(attempt.attemptedAt).getTime(),
    })),
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at.getTime() : null,
    createdAt: row.created_at.getTime(),
    completedAt: unixMs(row.completed_at),
  }));
}

/** Which endpoint a delivery of the workspace went to; undefined when the workspace has no such delivery. */
export async function findWebhookDelivery(
  em: EntityManager,
  workspaceId: string,
  deliveryId: string,
): Promise<{ id: string; endpointId: string } | undefined> {
  const row = await typed(em)
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  return row && { id: row.id, endpointId: row.endpoint_id };
}

/** A new delivery of a delivered (or failed) one's event to the same endpoint; undefined when there is no such delivery. */
export async function redeliverWebhook(
  em: EntityManager,
  workspaceId: string,
  deliveryId: string,
): Promise<string | undefined> {
  const created = await typed(em)
    .insertInto('webhook_deliveries')
    .columns(['id', 'event_id', 'endpoint_id', 'workspace_id', 'state', 'attempts', 'next_attempt_at', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select([
          eb.val(newId('webhookDelivery')).as('id'),
          'event_id',
          'endpoint_id',
          'workspace_id',
          sql.lit('pending').as('state'),
          eb.lit(0).as('attempts'),
          sql<Date>`now()`.as('next_attempt_at'),
          sql<Date>`now()`.as('created_at'),
        ])
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', deliveryId),
    )
    .returning('id')
    .executeTakeFirst();
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
  await typed(tx)
    .selectNoFrom((eb) =>
      eb
        .fn<void>('keyplane_credit_crossings', [
          eb.val(key.workspaceId),
          eb.val(key.apiId),
          eb.val(key.id),
          eb.val(before),
          eb.val(after),
          eb.val(refillAmount),
        ])
        .as('enqueued'),
    )
    .execute();
}
