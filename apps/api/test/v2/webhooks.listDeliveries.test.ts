import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, expectProblem, itNeedsARootKey } from '../assertions.ts';
import { type TestWorkspace, useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { createTestEndpoint, sendTestEvent, storeFinishedDelivery } from '../webhooks.ts';

const api = useApi();
let workspace: TestWorkspace;
let endpointId: string;
let otherEndpointId: string;
/** The first endpoint's finished deliveries, newest first. */
let finished: string[] = [];
const em = () => api.orm.em.fork();

const listDeliveries = (body: InputOf<'webhooks.listDeliveries'>, rootKey = workspace.rootKey) =>
  api.call('webhooks.listDeliveries', body, rootKey);

const failedAttempts = [
  { statusCode: 503, error: null, responseBody: 'upstream unavailable', durationMs: 12.5 },
  { statusCode: null, error: 'getaddrinfo ENOTFOUND hooks.example.com', responseBody: null, durationMs: 3 },
];

const succeededAttempt = { statusCode: 204, error: null, responseBody: '', durationMs: 1 };

beforeAll(async () => {
  workspace = await api.workspace();
  // Endpoints wanting only key.deleted: the root keys the tests make announce nothing to them.
  ({ endpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] }));
  ({ endpointId: otherEndpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] }));
  const ids: string[] = [];
  const endpoint = { workspaceId: workspace.workspaceId, endpointId };
  for (let i = 0; i < 6; i += 1) {
    ids.push((await storeFinishedDelivery(em(), endpoint, 'succeeded', [succeededAttempt])).deliveryId);
  }
  finished = ids.sort().reverse();
  await storeFinishedDelivery(
    em(),
    { workspaceId: workspace.workspaceId, endpointId: otherEndpointId },
    'failed',
    failedAttempts,
  );
});

describe('200', () => {
  it("answers a delivery with its event, its state and each attempt's answer", async () => {
    const { endpointId: loggedId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] });
    const { deliveryId, eventId, payload } = await storeFinishedDelivery(
      em(),
      { workspaceId: workspace.workspaceId, endpointId: loggedId },
      'failed',
      failedAttempts,
    );
    const reply = await listDeliveries({ endpointId: loggedId });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'meta', 'pagination']);
    expect(reply.body.data).toEqual([
      {
        deliveryId,
        endpointId: loggedId,
        eventId,
        eventType: 'key.deleted',
        payload,
        state: 'failed',
        attempts: failedAttempts.map((attempt) => ({ attemptedAt: expect.any(Number), ...attempt })),
        nextAttemptAt: null,
        createdAt: expect.any(Number),
        completedAt: expect.any(Number),
      },
    ]);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });

  it('answers a pending delivery with when its next attempt is due', async () => {
    const { endpointId: pendingId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] });
    const deliveryId = await sendTestEvent(api, em(), workspace.rootKey, pendingId);
    const [delivery] = (await listDeliveries({ endpointId: pendingId })).body.data;
    expect(delivery).toMatchObject({ deliveryId, eventType: 'webhook.test', completedAt: null });
    // The worker may have tried it already (its target does not resolve), but it is due again.
    expect(delivery?.state).toBe('pending');
    expect(delivery?.nextAttemptAt).toEqual(expect.any(Number));
  });

  it("lists one endpoint's deliveries newest first, and walks them with the cursors", async () => {
    const firstPage = await listDeliveries({ endpointId, limit: 4 });
    expect(firstPage.body.data.map((delivery) => delivery.deliveryId)).toEqual(finished.slice(0, 4));
    expect(firstPage.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const secondPage = await listDeliveries({ endpointId, limit: 4, cursor: firstPage.body.pagination.cursor });
    expect(secondPage.body.data.map((delivery) => delivery.deliveryId)).toEqual(finished.slice(4));
    expect(secondPage.body.pagination).toEqual({ hasMore: false });
  });

  it("lists every endpoint's deliveries without endpointId", async () => {
    const endpoints = new Set((await listDeliveries({})).body.data.map((delivery) => delivery.endpointId));
    expect(endpoints).toContain(endpointId);
    expect(endpoints).toContain(otherEndpointId);
  });
});

describe('400', () => {
  it.each([
    [{ limit: 0 }, 'body.limit'],
    [{ limit: 101 }, 'body.limit'],
    [{ cursor: '' }, 'body.cursor'],
    [{ cursor: 'not-a-cursor' }, 'body.cursor'],
    [{ endpointId: 'a b' }, 'body.endpointId'],
    [{ state: 'failed' }, 'body.state'],
  ])('rejects %j', async (body, location) => {
    expectInvalidInput(await api.post('webhooks.listDeliveries', body, workspace.rootKey), location);
  });

  it("rejects another workspace's cursor", async () => {
    const cursor = (await listDeliveries({ endpointId, limit: 1 })).body.pagination.cursor;
    const other = await api.workspace();
    expectInvalidInput(await listDeliveries({ cursor }, other.rootKey), 'body.cursor');
  });
});

describe('401', () => {
  itNeedsARootKey((rootKey) => api.call('webhooks.listDeliveries', {}, rootKey));
});

describe('403', () => {
  it("for one endpoint's, without webhook.<endpointId>.read_endpoint or the wildcard, naming it", async () => {
    for (const grants of [[], ['webhook.*.update_endpoint'], [`webhook.${otherEndpointId}.read_endpoint`]]) {
      const { rootKey } = await workspace.rootKeyWith(grants);
      expectMissingPermissions(await listDeliveries({ endpointId }, rootKey), `webhook.${endpointId}.read_endpoint`);
    }
  });

  it("for every endpoint's, without webhook.*.read_endpoint, even with a grant for each endpoint", async () => {
    const { rootKey } = await workspace.rootKeyWith([
      `webhook.${endpointId}.read_endpoint`,
      `webhook.${otherEndpointId}.read_endpoint`,
    ]);
    expectMissingPermissions(await listDeliveries({}, rootKey), 'webhook.*.read_endpoint');
  });

  it('not with the grant for the endpoint, or the wildcard', async () => {
    for (const grant of [`webhook.${endpointId}.read_endpoint`, 'webhook.*.read_endpoint']) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      const reply = await listDeliveries({ endpointId }, rootKey);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toHaveLength(finished.length);
    }
  });
});

describe('404', () => {
  it('for an endpoint the workspace does not have', async () => {
    const reply = await listDeliveries({ endpointId: 'whep_missing' });
    expectProblem(reply, 404, 'service/data/webhook_endpoint_not_found');
    expect(reply.body.error.detail).toBe("The webhook endpoint 'whep_missing' was not found.");
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's endpoint is not found, and its deliveries are never listed", async () => {
    const other = await api.workspace();
    expectProblem(await listDeliveries({ endpointId }, other.rootKey), 404, 'service/data/webhook_endpoint_not_found');
    const { rootKey } = await other.rootKeyWith([`webhook.${endpointId}.read_endpoint`]);
    expect((await listDeliveries({ endpointId }, rootKey)).status).toBe(404);
    expect((await listDeliveries({}, other.rootKey)).body.data).toEqual([]);
  });
});
