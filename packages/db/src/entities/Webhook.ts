import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

/**
 * A workspace's receiver of webhook events (docs/webhooks.md): where to send, which event types
 * (`*` for all), optionally only events of some APIs, and the thresholds of the events it defines.
 */
export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    url: p.string().length(2048),
    description: p.string().length(255).nullable(),
    eventTypes: p.array(),
    /** Only events of these APIs (events with no API, such as root-key events, always match); null for all. */
    apiIds: p.array().nullable(),
    /** The Standard Webhooks signing secret, `whsec_` and base64. */
    secret: p.string().length(128),
    enabled: p.boolean().default(true),
    /** Why the service disabled it (failing for days); null when a person did, or it is enabled. */
    disabledReason: p.text().nullable(),
    /** When its deliveries started failing without a success since; null while it answers. */
    failingSince: p.datetime().nullable(),
    /** `key.credits.low` when remaining credits cross below this many… */
    creditsLowThreshold: p.integer().nullable(),
    /** …or below this percentage of the key's refill amount (keys without a refill use only the absolute one). */
    creditsLowPercent: p.integer().nullable(),
    /** `key.expiring` this long before a key expires. */
    expiringNoticeMs: p.bigint('number').default(604_800_000),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['workspace', 'id'] }],
});
export class WebhookEndpoint extends WebhookEndpointSchema.class {}
WebhookEndpointSchema.setClass(WebhookEndpoint);

/** The outbox: one event, written in the transaction of the change that caused it. */
export const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  properties: {
    id: p.string().length(64).primary(),
    workspaceId: p.string().length(64),
    type: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});
export class WebhookEvent extends WebhookEventSchema.class {}
WebhookEventSchema.setClass(WebhookEvent);

/** One event owed to one endpoint, until it is delivered or its attempts run out. */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.string().length(64).primary(),
    event: () => p.manyToOne(WebhookEvent).deleteRule('cascade'),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    workspaceId: p.string().length(64),
    /** pending, succeeded or failed (its attempts ran out, or its endpoint was disabled). */
    state: p.string().length(16),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime(),
    createdAt: p.datetime(),
    completedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'webhook_deliveries_due_index', properties: ['nextAttemptAt'], where: { state: 'pending' } },
    // Claims take a few due deliveries of each workspace in turn (claimDueDeliveries).
    {
      name: 'webhook_deliveries_due_by_workspace_index',
      properties: ['workspaceId', 'nextAttemptAt'],
      where: { state: 'pending' },
    },
    { properties: ['endpoint', 'id'] },
  ],
});
export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);

/** One attempt at a delivery and what the receiver answered, for the delivery log. */
export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    delivery: () => p.manyToOne(WebhookDelivery).deleteRule('cascade'),
    attemptedAt: p.datetime(),
    /** The receiver's HTTP status; null when none came (refused, timed out, no connection). */
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
    /** The start of the receiver's answer (docs/webhooks.md says how much). */
    responseBody: p.text().nullable(),
    durationMs: p.double(),
  },
  indexes: [{ properties: ['delivery', 'id'] }],
});
export class WebhookAttempt extends WebhookAttemptSchema.class {}
WebhookAttemptSchema.setClass(WebhookAttempt);

/** Which expiry notices an endpoint was sent, so a key's `key.expiring` and `key.expired` go once per expiry date. */
export const WebhookKeyNoticeSchema = defineEntity({
  name: 'WebhookKeyNotice',
  tableName: 'webhook_key_notices',
  properties: {
    endpointId: p.string().length(64).primary(),
    keyId: p.string().length(64).primary(),
    type: p.string().length(32).primary(),
    expiresAt: p.datetime().primary(),
  },
});
export class WebhookKeyNotice extends WebhookKeyNoticeSchema.class {}
WebhookKeyNoticeSchema.setClass(WebhookKeyNotice);
