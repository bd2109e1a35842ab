import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, expectProblem } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey, type TestWorkspace } from '../harness.ts';
import { itRejectsPaging } from '../lists.ts';
import type { InputOf } from '../procedures.ts';
import { createTestEndpoint, expectEndpointNotFound, sendTestEvent, storeFinishedDelivery } from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();
let endpointId: string;
let otherEndpointId: string;
/** The first endpoint's finished deliveries, newest first. */
let finished: string[] = [];

const listDeliveries = (body: InputOf<'webhooks.listDeliveries'>, rootKey = workspace.rootKey) =>
  api.call('webhooks.listDeliveries', body, rootKey);

const failedAttempts = [
  { statusCode: 503, error: null, responseBody: 'upstream unavailable', durationMs: 12.5 },
  { statusCode: null, error: 'getaddrinfo ENOTFOUND hooks.example.com', responseBody: null, durationMs: 3 },
];

const succeededAttempt = { statusCode: 204, error: null, responseBody: '', durationMs: 1 };

beforeAll(async () => {
  // Endpoints wanting only key.deleted: the root keys the tests make announce nothing to them.
  ({ endpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] }));
  ({ endpointId: otherEndpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] }));
  const ids: string[] = [];
  const endpoint = { workspaceId: workspace.workspaceId, endpointId };
  for (let i = 0; i < 6; i += 1) {
    ids.push((await storeFinishedDelivery(api.em(), endpoint, 'succeeded', [succeededAttempt])).deliveryId);
  }
  finished = ids.sort().reverse();
  await storeFinishedDelivery(
    api.em(),
    { workspaceId: workspace.workspaceId, endpointId: otherEndpointId },
    'failed',
    failedAttempts,
  );
});

describe('200', () => {
  it("answers a delivery with its event, its state and each attempt's answer", async () => {
    const { endpointId: loggedId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] });
    const { deliveryId, eventId, payload } = await storeFinishedDelivery(
      api.em(),
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
        payloadWithheld: false,
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
    const deliveryId = await sendTestEvent(api, api.em(), workspace.rootKey, pendingId);
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

describe("200: an event's data only for a reader who may read what it is about", () => {
  let readerWorkspace: TestWorkspace;
  let hookId: string;
  let apiA: string;
  let apiB: string;
  let namespaceId: string;
  /** What the events carry that a reader without the rights must not learn. */
  const secrets = ['key-name-in-a', 'ext_in_a', 'key-name-in-b', 'ext_in_b', 'user_overridden', '"permissions"'];

  beforeAll(async () => {
    readerWorkspace = await api.workspace();
    const owner = readerWorkspace.rootKey;
    ({ endpointId: hookId } = await createTestEndpoint(api, owner, { eventTypes: ['*'] }));
    apiA = await createTestApi(api, owner);
    apiB = await createTestApi(api, owner);
    await createTestKey(api, owner, { apiId: apiA, name: 'key-name-in-a', externalId: 'ext_in_a' });
    await createTestKey(api, owner, { apiId: apiB, name: 'key-name-in-b', externalId: 'ext_in_b' });
    // Limiting makes the namespace.
    await api.call(
      'ratelimit.limit',
      { namespace: 'hostile', identifier: 'anyone', limit: 5, duration: 60_000 },
      owner,
    );
    const override = await api.call(
      'ratelimit.setOverride',
      { namespace: 'hostile', identifier: 'user_overridden', limit: 1, duration: 60_000 },
      owner,
    );
    if (override.status !== 200) throw new Error(JSON.stringify(override.body));
    const [namespace] = await rows(
      api.em(),
      sql<{ id: string }>`select id from ratelimit_namespaces
                           where workspace_id = ${readerWorkspace.workspaceId} and name = 'hostile'`,
    );
    namespaceId = namespace?.id ?? '';
    await api.call('webhooks.sendTest', { endpointId: hookId }, owner);
  });

  /** What a reader with these grants (and webhook.*.read_endpoint) sees: the answer's text, and each delivery in words. */
  async function seenBy(grants: string[]) {
    const { rootKey } = await readerWorkspace.rootKeyWith(['webhook.*.read_endpoint', ...grants]);
    const reply = await listDeliveries({ endpointId: hookId }, rootKey);
    expect(reply.status).toBe(200);
    const seen = reply.body.data.map((delivery) => {
      if (delivery.payloadWithheld) return `${delivery.eventType} (withheld)`;
      const data = delivery.payload.data as { apiId?: string };
      return data.apiId === undefined
        ? delivery.eventType
        : `${delivery.eventType} in ${data.apiId === apiA ? 'A' : 'B'}`;
    });
    return { text: JSON.stringify(reply.body), seen };
  }

  it('reading the endpoint alone shows that events were sent, and their data only for the test event', async () => {
    const { text, seen } = await seenBy([]);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(seen).toContain('webhook.test');
    expect(seen.filter((about) => about.startsWith('key.created'))).toEqual([
      'key.created (withheld)',
      'key.created (withheld)',
    ]);
    expect(seen).toContain('ratelimit.override.changed (withheld)');
    expect(seen).toContain('rootkey.created (withheld)');
  });

  it('withholds the data but keeps the type and time', async () => {
    const { rootKey } = await readerWorkspace.rootKeyWith(['webhook.*.read_endpoint']);
    const [withheld] = (await listDeliveries({ endpointId: hookId }, rootKey)).body.data.filter(
      (delivery) => delivery.eventType === 'key.created',
    );
    expect(withheld?.payloadWithheld).toBe(true);
    expect(withheld?.payload).toEqual({ type: 'key.created', timestamp: expect.any(String) });
  });

  it("read_key on one API shows that API's key events, not another's", async () => {
    const { text, seen } = await seenBy([`api.${apiA}.read_key`]);
    expect(text).toContain('key-name-in-a');
    expect(text).not.toContain('key-name-in-b');
    expect(text).not.toContain('ext_in_b');
    expect(seen.filter((about) => about.startsWith('key.created'))).toEqual([
      'key.created (withheld)',
      'key.created in A',
    ]);
  });

  it('read_key on every API shows every key event, and nothing else', async () => {
    const { text } = await seenBy(['api.*.read_key']);
    for (const secret of ['key-name-in-a', 'ext_in_a', 'key-name-in-b', 'ext_in_b']) expect(text).toContain(secret);
    expect(text).not.toContain('user_overridden');
  });

  it("read_override on the namespace shows the override's event", async () => {
    expect((await seenBy([`ratelimit.${namespaceId}.read_override`])).text).toContain('user_overridden');
    expect((await seenBy(['ratelimit.rlns_other.read_override'])).text).not.toContain('user_overridden');
  });

  it.each(['workspace.*.manage_root_keys', 'workspace.*.read_root_keys'])(
    'the right to read root keys (%s) shows the root-key events, with their permissions',
    async (grant) => {
      const { rootKey } = await readerWorkspace.rootKeyWith(['webhook.*.read_endpoint', grant]);
      const created = (await listDeliveries({ endpointId: hookId }, rootKey)).body.data.filter(
        (delivery) => delivery.eventType === 'rootkey.created',
      );
      expect(created.length).toBeGreaterThan(0);
      for (const delivery of created) {
        expect(delivery.payloadWithheld).toBe(false);
        expect(delivery.payload.data).toMatchObject({ permissions: expect.any(Array) });
      }
    },
  );

  it('a root key with every permission sees every event whole', async () => {
    const all = (await listDeliveries({ endpointId: hookId }, readerWorkspace.rootKey)).body.data;
    expect(all.length).toBeGreaterThan(4);
    expect(all.filter((delivery) => delivery.payloadWithheld)).toEqual([]);
  });
});

describe('400', () => {
  itRejectsPaging(api, 'webhooks.listDeliveries', () => workspace.rootKey, {
    more: [
      [{ cursor: 'not-a-cursor' }, 'body.cursor'],
      [{ endpointId: 'a b' }, 'body.endpointId'],
      [{ state: 'failed' }, 'body.state'],
    ],
  });

  it("rejects another workspace's cursor", async () => {
    const cursor = (await listDeliveries({ endpointId, limit: 1 })).body.pagination.cursor;
    const other = await api.workspace();
    expectInvalidInput(await listDeliveries({ cursor }, other.rootKey), 'body.cursor');
  });
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
    expectEndpointNotFound(await listDeliveries({ endpointId: 'whep_missing' }), 'whep_missing');
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
