import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { TARGET_NOT_ALLOWED, WEBHOOK_WORKSPACE_IN_FLIGHT } from '@keyplane/webhooks';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { REDIS_URL } from './harness.ts';
import { startWebhookReceiver, until, type WebhookReceiver } from './webhookReceiver.ts';

/** Enough events that both nodes claim deliveries of one endpoint at the same time, again and again. */
const BULK_EVENTS = 300;

// Webhooks end to end (docs/webhooks.md): server processes as they run in production, a real
// receiving HTTP server, signatures checked with the standardwebhooks package as a customer would.

const RETRIES_MS = '300,600,900,1200';

async function call<TData = Record<string, unknown>>(
  server: SpawnedServer,
  key: string,
  procedure: string,
  body: unknown,
  transport: 'v2' | 'trpc' = 'v2',
): Promise<{ status: number; data: TData }> {
  const response = await fetch(`${server.url}/${transport}/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const payload = (await response.json()) as { data?: TData; result?: { data: TData } };
  return { status: response.status, data: (transport === 'v2' ? payload.data : payload.result?.data) as TData };
}

async function createEndpoint(server: SpawnedServer, key: string, body: Record<string, unknown>) {
  const created = await call<{ endpointId: string; secret: string }>(server, key, 'webhooks.createEndpoint', body);
  expect(created.status).toBe(200);
  expect(created.data.secret).toMatch(/^whsec_/);
  return created.data;
}

function startNode(database: TestDatabase, env: Record<string, string> = {}) {
  return spawnServer({
    DATABASE_URL: database.url,
    ...(REDIS_URL ? { REDIS_URL } : {}),
    WEBHOOKS_RETRY_DELAYS_MS: RETRIES_MS,
    ...env,
  });
}

/** What each describe starts from: a database of its own and a receiver. */
async function databaseAndReceiver() {
  const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  return { database, receiver: await startWebhookReceiver() };
}

/** Stops a describe's nodes (a killed one is stopped already), then closes its receiver and drops its database. */
async function endAll(
  nodes: (SpawnedServer | undefined)[],
  receiver: WebhookReceiver | undefined,
  database: TestDatabase | undefined,
) {
  await Promise.all(nodes.map((node) => node?.stop()));
  await receiver?.close();
  await database?.drop();
}

describe('webhooks delivered by two server processes', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const nodes: SpawnedServer[] = [];
  let rootKey: string;
  let apiId: string;

  beforeAll(async () => {
    ({ database, receiver } = await databaseAndReceiver());
    nodes.push(await startNode(database, { WEBHOOKS_ALLOW_PRIVATE: 'true' }));
    nodes.push(await startNode(database, { WEBHOOKS_ALLOW_PRIVATE: 'true' }));
    rootKey = nodes[0]?.rootKey ?? '';
    apiId = (await call<{ apiId: string }>(first(), rootKey, 'apis.createApi', { name: 'webhooks' })).data.apiId;
  }, 60_000);

  afterAll(() => endAll(nodes, receiver, database));

  const first = () => nodes[0] as SpawnedServer;
  const second = () => nodes[1] as SpawnedServer;

  it('sends every event type, signed so that a Standard Webhooks library verifies it, without key material', async () => {
    const { secret } = await createEndpoint(first(), rootKey, {
      url: receiver.url('/all'),
      eventTypes: ['*'],
      creditsLow: { threshold: 10 },
    });
    const v2 = (procedure: string, body: unknown) => call<Record<string, string>>(first(), rootKey, procedure, body);
    const made = await v2('keys.createKey', { apiId, name: 'metered', credits: { remaining: 12 } });
    const plaintexts = [made.data.key];
    const keyId = made.data.keyId as string;
    // 12 → 11 → 10 crosses the threshold of 10 once; 10 → 0 exhausts; a refused spend changes nothing.
    for (const cost of [1, 1, 1, 9, 1]) await v2('keys.verifyKey', { key: made.data.key, credits: { cost } });
    const refilling = await v2('keys.createKey', {
      apiId,
      name: 'refilling',
      credits: { remaining: 0, refill: { interval: 'daily', amount: 100 } },
    });
    plaintexts.push(refilling.data.key);
    await database.orm.em
      .fork()
      .getConnection()
      .execute(`update keys set last_refill_at = now() - interval '2 days' where id = '${refilling.data.keyId}'`);
    await v2('keys.verifyKey', { key: refilling.data.key });
    await v2('keys.updateKey', { keyId, name: 'renamed' });
    await v2('keys.updateKey', { keyId, enabled: false });
    const rerolled = await v2('keys.rerollKey', { keyId, expiration: 0 });
    plaintexts.push(rerolled.data.key);
    await v2('keys.deleteKey', { keyId: rerolled.data.keyId });
    const expiring = await v2('keys.createKey', { apiId, name: 'expiring', expires: Date.now() + 86_400_000 });
    const expired = await v2('keys.createKey', { apiId, name: 'expired', expires: Date.now() + 1000 });
    plaintexts.push(expiring.data.key, expired.data.key);
    await v2('ratelimit.limit', { namespace: 'hooks', identifier: 'user_1', limit: 5, duration: 60_000 });
    await v2('ratelimit.setOverride', { namespace: 'hooks', identifier: 'user_1', limit: 5, duration: 60_000 });
    const rootKeyMade = await call<{ key: string; rootKeyId: string }>(
      first(),
      rootKey,
      'rootKeys.createRootKey',
      { name: 'hooked', permissions: ['api.*.read_api'] },
      'trpc',
    );
    plaintexts.push(rootKeyMade.data.key);
    await call(first(), rootKey, 'rootKeys.revokeRootKey', { rootKeyId: rootKeyMade.data.rootKeyId }, 'trpc');

    const every = [
      'key.created',
      'key.updated',
      'key.disabled',
      'key.deleted',
      'key.rerolled',
      'key.expiring',
      'key.expired',
      'key.credits.low',
      'key.credits.exhausted',
      'key.credits.refilled',
      'ratelimit.override.changed',
      'rootkey.created',
      'rootkey.revoked',
    ];
    const typesSeen = () =>
      new Set(receiver.received.filter((hook) => hook.path === '/all').map((hook) => hook.body.type));
    // The expiry scan runs every 10 s.
    const seen = await until(typesSeen, (types) => every.every((type) => types.has(type)), 30_000);
    expect(every.filter((type) => !seen.has(type))).toEqual([]);

    const hooks = receiver.received.filter((hook) => hook.path === '/all');
    const verifier = new Webhook(secret);
    for (const hook of hooks) {
      expect(verifier.verify(hook.raw, hook.headers as Record<string, string>)).toEqual(hook.body);
      expect(hook.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // A signature made with another secret is refused.
    const forged = hooks[0];
    if (!forged) throw new Error('no webhook arrived');
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(
        forged.raw,
        forged.headers as Record<string, string>,
      ),
    ).toThrow();
    for (const plaintext of plaintexts) expect(JSON.stringify(hooks)).not.toContain(plaintext);

    const ofKey = (type: string) => hooks.filter((hook) => hook.body.type === type && hook.body.data.keyId === keyId);
    // Once per crossing, not once per verification.
    expect(ofKey('key.credits.low').map((hook) => hook.body.data)).toEqual([
      { keyId, apiId, remaining: 10, threshold: 10 },
    ]);
    expect(ofKey('key.credits.exhausted').map((hook) => hook.body.data)).toEqual([{ keyId, apiId, remaining: 0 }]);
    expect(ofKey('key.created')[0]?.body.data).toMatchObject({ keyId, apiId, name: 'metered' });
    expect(ofKey('key.rerolled')[0]?.body.data).toMatchObject({ keyId, newKeyId: rerolled.data.keyId });
  }, 60_000);

  it('tries a failing receiver again after backoff, and delivers once it answers', async () => {
    receiver.answer('/flaky', (attempt) => (attempt <= 3 ? 500 : 200));
    const { endpointId } = await createEndpoint(first(), rootKey, {
      url: receiver.url('/flaky'),
      eventTypes: ['key.created'],
    });
    await call(second(), rootKey, 'keys.createKey', { apiId, name: 'flaky' });
    const arrivals = await until(
      () => receiver.received.filter((hook) => hook.path === '/flaky'),
      (hooks) => hooks.length >= 4,
    );
    expect(arrivals).toHaveLength(4);
    expect(new Set(arrivals.map((hook) => hook.id)).size).toBe(1);
    const log = await until(
      async () =>
        (
          await call<{ state: string; attempts: { statusCode: number; responseBody: string }[] }[]>(
            first(),
            rootKey,
            'webhooks.listDeliveries',
            { endpointId },
          )
        ).data,
      (deliveries) => deliveries[0]?.state === 'succeeded',
    );
    expect(log).toHaveLength(1);
    expect(log[0]?.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 200]);
    // Answers are kept truncated in the log.
    expect(log[0]?.attempts[0]?.responseBody.length).toBe(1024);
    // Nothing arrives again once delivered.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((hook) => hook.path === '/flaky')).toHaveLength(4);
  });

  it('disables an endpoint failing for days, says why, and sends again once it is enabled', async () => {
    receiver.answer('/dead', () => 503);
    const { endpointId } = await createEndpoint(first(), rootKey, {
      url: receiver.url('/dead'),
      eventTypes: ['key.created'],
    });
    await call(first(), rootKey, 'keys.createKey', { apiId, name: 'dead' });
    await until(
      () => receiver.received.filter((hook) => hook.path === '/dead'),
      (hooks) => hooks.length >= 1,
    );
    // As if its deliveries had failed for six days: the next failure disables it.
    await database.orm.em
      .fork()
      .getConnection()
      .execute(`update webhook_endpoints set failing_since = now() - interval '6 days' where id = '${endpointId}'`);
    type Endpoint = { endpointId: string; enabled: boolean; disabledReason: string | null };
    const endpointNow = async () =>
      (await call<Endpoint[]>(first(), rootKey, 'webhooks.listEndpoints', {})).data.find(
        (endpoint) => endpoint.endpointId === endpointId,
      );
    const disabled = await until(endpointNow, (endpoint) => endpoint?.enabled === false);
    expect(disabled?.disabledReason).toMatch(/^Disabled after failing since .* the last attempt got: HTTP 503$/);
    const attemptsWhenDisabled = receiver.received.filter((hook) => hook.path === '/dead').length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(receiver.received.filter((hook) => hook.path === '/dead')).toHaveLength(attemptsWhenDisabled);

    receiver.answer('/dead', () => 200);
    await call(second(), rootKey, 'webhooks.updateEndpoint', { endpointId, enabled: true });
    await until(
      () => receiver.received.filter((hook) => hook.path === '/dead' && hook.body.type === 'key.created'),
      (hooks) => hooks.length > attemptsWhenDisabled,
    );
    expect(await endpointNow()).toMatchObject({ enabled: true, disabledReason: null });
  });

  it(`delivers ${BULK_EVENTS} events from both nodes, none lost and none sent twice at once`, async () => {
    receiver.answer('/bulk', () => 200);
    await createEndpoint(first(), rootKey, { url: receiver.url('/bulk'), eventTypes: ['key.updated'] });
    const { keyId } = (await call<{ keyId: string }>(first(), rootKey, 'keys.createKey', { apiId })).data;
    const updates = Array.from({ length: BULK_EVENTS }, (_, index) => index);
    for (let start = 0; start < updates.length; start += 25) {
      await Promise.all(
        updates
          .slice(start, start + 25)
          .map((index) =>
            call(nodes[index % 2] as SpawnedServer, rootKey, 'keys.updateKey', { keyId, meta: { index } }),
          ),
      );
    }
    const bulk = () => receiver.received.filter((hook) => hook.path === '/bulk');
    // One workspace's deliveries go WEBHOOK_WORKSPACE_IN_FLIGHT at a time on each node.
    await until(
      () => new Set(bulk().map((hook) => hook.id)).size,
      (count) => count >= BULK_EVENTS,
      240_000,
    );
    const perEvent = new Map<string, number>();
    for (const hook of bulk()) perEvent.set(hook.id, (perEvent.get(hook.id) ?? 0) + 1);
    expect(perEvent.size).toBe(BULK_EVENTS);
    expect([...perEvent.values()].every((count) => count === 1)).toBe(true);
    expect(receiver.mostAtOnceForOneEvent()).toBe(1);
  }, 300_000);
});

describe('a node killed while it delivers', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let killed: SpawnedServer;
  let successor: SpawnedServer | undefined;

  beforeAll(async () => {
    ({ database, receiver } = await databaseAndReceiver());
    killed = await startNode(database, { WEBHOOKS_ALLOW_PRIVATE: 'true' });
  }, 60_000);

  afterAll(() => endAll([successor], receiver, database));

  it('loses nothing: another node delivers what it held', async () => {
    const rootKey = killed.rootKey ?? '';
    receiver.answer('/slow', () => 'hang');
    await createEndpoint(killed, rootKey, { url: receiver.url('/slow'), eventTypes: ['key.created'] });
    const { apiId } = (await call<{ apiId: string }>(killed, rootKey, 'apis.createApi', { name: 'killed' })).data;
    for (let index = 0; index < 5; index++) await call(killed, rootKey, 'keys.createKey', { apiId });
    // As many workers of the node as one workspace may hold each hold one, waiting for the receiver.
    expect(await until(receiver.hangingCount, (count) => count === WEBHOOK_WORKSPACE_IN_FLIGHT)).toBe(
      WEBHOOK_WORKSPACE_IN_FLIGHT,
    );
    await killed.kill();
    await until(receiver.hangingCount, (count) => count === 0);

    receiver.answer('/slow', () => 200);
    successor = await startNode(database, { WEBHOOKS_ALLOW_PRIVATE: 'true' });
    const delivered = await until(
      () => new Set(receiver.received.filter((hook) => hook.path === '/slow').map((hook) => hook.id)),
      (ids) => ids.size >= 5,
    );
    expect(delivered.size).toBe(5);
    // The killed node's attempts never committed: each delivery took one recorded attempt (recorded
    // just after the receiver answered, so read once none is pending).
    const recorded = () =>
      database.orm.em
        .fork()
        .getConnection()
        .execute<{ attempts: number; state: string }[]>('select attempts, state from webhook_deliveries');
    const attempts = await until(recorded, (rows) => rows.every(({ state }) => state !== 'pending'));
    expect(attempts).toEqual(Array.from({ length: 5 }, () => ({ attempts: 1, state: 'succeeded' })));
  });
});

describe('private targets', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let server: SpawnedServer;

  beforeAll(async () => {
    ({ database, receiver } = await databaseAndReceiver());
    server = await startNode(database);
  }, 60_000);

  afterAll(() => endAll([server], receiver, database));

  it('are refused by default, when the endpoint is made and when a name resolves to one', async () => {
    const rootKey = server.rootKey ?? '';
    for (const url of [receiver.url('/private'), 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/x']) {
      const refused = await call(server, rootKey, 'webhooks.createEndpoint', { url, eventTypes: ['*'] });
      expect(refused.status).toBe(400);
    }
    // A public-looking name that resolves to a loopback address at delivery time is refused there.
    const { endpointId } = await createEndpoint(server, rootKey, {
      url: `http://localtest.keyplane.invalid:${receiver.port}/private`,
      eventTypes: ['key.created'],
    });
    await database.orm.em
      .fork()
      .getConnection()
      .execute(
        `update webhook_endpoints set url = 'http://localhost:${receiver.port}/private' where id = '${endpointId}'`,
      );
    const { apiId } = (await call<{ apiId: string }>(server, rootKey, 'apis.createApi', { name: 'private' })).data;
    await call(server, rootKey, 'keys.createKey', { apiId });
    const log = await until(
      async () =>
        (
          await call<{ attempts: { error: string | null; statusCode: number | null }[] }[]>(
            server,
            rootKey,
            'webhooks.listDeliveries',
            { endpointId },
          )
        ).data,
      (deliveries) => (deliveries[0]?.attempts.length ?? 0) > 0,
    );
    expect(log[0]?.attempts[0]).toMatchObject({
      statusCode: null,
      error: TARGET_NOT_ALLOWED,
    });
    expect(receiver.received).toEqual([]);
  });
});
