import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql, typed } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueWebhookEvent,
  findWebhookDelivery,
  findWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  setWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointSettings,
} from './webhooks.ts';

let database: TestDatabase;
const workspaceId = 'ws_webhooks';
const settings: WebhookEndpointSettings = {
  url: 'https://example.com/hook',
  description: null,
  eventTypes: ['key.created'],
  apiIds: null,
  enabled: true,
  creditsLowThreshold: 10,
  creditsLowPercent: null,
  expiringNoticeMs: 86_400_000,
};

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  await typed(database.orm.em.fork())
    .insertInto('workspaces')
    .values({ id: workspaceId, name: 'webhooks', created_at: sql`now()` })
    .execute();
});
afterAll(async () => {
  await database.drop();
});

describe('webhook endpoints', () => {
  it('are created up to the bound, read, changed and deleted', async () => {
    const em = () => database.orm.em.fork();
    const before = Date.now();
    const created = await createWebhookEndpoint(em(), workspaceId, settings, 'whsec_a', 2);
    expect(created).toMatchObject({
      url: settings.url,
      eventTypes: ['key.created'],
      apiIds: null,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      creditsLowThreshold: 10,
      expiringNoticeMs: 86_400_000,
      updatedAt: null,
    });
    expect(created?.createdAt).toBeGreaterThanOrEqual(before - 1000);
    const second = await createWebhookEndpoint(em(), workspaceId, { ...settings, apiIds: ['api_1'] }, 'whsec_b', 2);
    expect(second?.apiIds).toEqual(['api_1']);
    expect(await createWebhookEndpoint(em(), workspaceId, settings, 'whsec_c', 2)).toBeUndefined();

    const id = created?.id ?? '';
    expect(await findWebhookEndpoint(em(), workspaceId, id)).toEqual(created);
    expect(await findWebhookEndpoint(em(), 'ws_other', id)).toBeUndefined();
    const listed = await listWebhookEndpoints(em(), workspaceId, { count: 10 });
    expect(listed.map((endpoint) => endpoint.id)).toEqual([id, second?.id].sort());
    expect(await listWebhookEndpoints(em(), workspaceId, { count: 10, ids: [id] })).toEqual([created]);

    await typed(em())
      .updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: 'failing', failing_since: new Date(1_000) })
      .where('id', '=', id)
      .execute();
    const described = await updateWebhookEndpoint(em(), workspaceId, id, { description: 'mine' });
    expect(described).toMatchObject({
      description: 'mine',
      enabled: false,
      disabledReason: 'failing',
      failingSince: 1_000,
    });
    expect(described?.updatedAt).toBeGreaterThanOrEqual(before - 1000);
    const enabled = await updateWebhookEndpoint(em(), workspaceId, id, { enabled: true, eventTypes: ['*'] });
    expect(enabled).toMatchObject({ description: 'mine', enabled: true, disabledReason: null, failingSince: null });
    expect(enabled?.eventTypes).toEqual(['*']);
    expect(await updateWebhookEndpoint(em(), 'ws_other', id, { enabled: true })).toBeUndefined();

    expect(await setWebhookSecret(em(), workspaceId, id, 'whsec_new')).toBe(true);
    expect(await setWebhookSecret(em(), 'ws_other', id, 'whsec_new')).toBe(false);
    expect(await deleteWebhookEndpoint(em(), workspaceId, second?.id ?? '')).toBe(true);
    expect(await deleteWebhookEndpoint(em(), workspaceId, second?.id ?? '')).toBe(false);
  });
});

describe('webhook deliveries', () => {
  it('are listed with their attempts, found and delivered again', async () => {
    const em = () => database.orm.em.fork();
    await typed(em())
      .insertInto('workspaces')
      .values({ id: 'ws_deliveries', name: 'deliveries', created_at: sql`now()` })
      .execute();
    const target = await createWebhookEndpoint(em(), 'ws_deliveries', settings, 'whsec_x', 1);
    const endpointId = target?.id ?? '';
    await em().transactional((tx) =>
      enqueueWebhookEvent(tx, { workspaceId: 'ws_deliveries', type: 'key.created', apiId: null, data: { keyId: 'k' } }),
    );
    const [delivery] = await listWebhookDeliveries(em(), 'ws_deliveries', { count: 10 });
    expect(delivery).toMatchObject({ endpointId, eventType: 'key.created', state: 'pending', attempts: [] });
    expect(delivery?.payload).toMatchObject({ type: 'key.created', data: { keyId: 'k' } });
    expect(delivery?.nextAttemptAt).toEqual(expect.any(Number));
    expect(delivery?.completedAt).toBeNull();
    const deliveryId = delivery?.id ?? '';

    await typed(em())
      .insertInto('webhook_attempts')
      .values([
        {
          delivery_id: deliveryId,
          attempted_at: new Date(5_000),
          status_code: 500,
          error: null,
          response_body: 'no',
          duration_ms: 1.5,
        },
        {
          delivery_id: deliveryId,
          attempted_at: new Date(6_000),
          status_code: null,
          error: 'refused',
          response_body: null,
          duration_ms: 2,
        },
      ])
      .execute();
    await typed(em())
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', completed_at: new Date(7_000) })
      .where('id', '=', deliveryId)
      .execute();
    const [failed] = await listWebhookDeliveries(em(), 'ws_deliveries', { count: 10, endpointId });
    expect(failed).toMatchObject({ state: 'failed', nextAttemptAt: null, completedAt: 7_000 });
    expect(failed?.attempts).toEqual([
      { attemptedAt: 5_000, statusCode: 500, error: null, responseBody: 'no', durationMs: 1.5 },
      { attemptedAt: 6_000, statusCode: null, error: 'refused', responseBody: null, durationMs: 2 },
    ]);

    expect(await findWebhookDelivery(em(), 'ws_deliveries', deliveryId)).toEqual({ id: deliveryId, endpointId });
    expect(await findWebhookDelivery(em(), workspaceId, deliveryId)).toBeUndefined();
    const again = await redeliverWebhook(em(), 'ws_deliveries', deliveryId);
    expect(again).toEqual(expect.any(String));
    expect(await redeliverWebhook(em(), workspaceId, deliveryId)).toBeUndefined();
    const listed = await listWebhookDeliveries(em(), 'ws_deliveries', { count: 10 });
    expect(listed.map((listedDelivery) => listedDelivery.id)).toEqual([again, deliveryId].sort().reverse());
    expect(listed.find((listedDelivery) => listedDelivery.id === again)).toMatchObject({
      state: 'pending',
      attempts: [],
    });
    expect(await listWebhookDeliveries(em(), 'ws_deliveries', { count: 10, fromId: deliveryId })).toHaveLength(
      listed.filter((listedDelivery) => listedDelivery.id <= deliveryId).length,
    );
  });
});
