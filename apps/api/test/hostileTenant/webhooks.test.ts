import { bootstrapWorkspace, WEBHOOK_RESPONSE_LOG_BYTES } from '@keyplane/core';
import { type EntityManager, rows, sql, workspaceStore } from '@keyplane/db';
import type { TestDatabase } from '@keyplane/db/testing';
import { TARGET_NOT_ALLOWED, WEBHOOK_TIMEOUT_MS, WEBHOOK_WORKSPACE_IN_FLIGHT } from '@keyplane/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INVALID_UTF8_BODY,
  NUL_BODY,
  startHostileReceiver,
} from '../../../../packages/webhooks/test/hostileReceiver.ts';
import { callAt } from '../harness.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';
import { useTwoNodes } from '../twoNodes.ts';
import { startWebhookReceiver, until } from '../webhookReceiver.ts';

// The hostile tenant's webhooks (docs/webhooks.md#safety, #delivery), against real server
// processes: receivers that answer garbage, hang or crawl; targets in every address form that is
// not public; and a workspace trying to keep every other workspace's events from going out.
// Every connection these tests let the server make goes to a loopback port.

/** How long `until` waits here: hostile receivers hang and crawl, so longer than for a plain delivery. */
const HOSTILE_WAIT_MS = 30_000;

/** Another workspace on the server's database, with a root key holding every permission. */
const otherWorkspace = (database: TestDatabase) =>
  database.orm.em.fork().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'neighbour' }));

async function createEndpoint(url: string, rootKey: string, body: { url: string; enabled?: boolean }) {
  const reply = await callAt(url, 'webhooks.createEndpoint', { eventTypes: ['key.created'], ...body }, rootKey);
  if (reply.status !== 200) throw new Error(`createEndpoint failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data.endpointId;
}

async function createKeys(url: string, rootKey: string, count: number) {
  const made = await callAt(url, 'apis.createApi', { name: 'hostile' }, rootKey);
  if (made.status !== 200) throw new Error(`createApi failed: ${JSON.stringify(made.body)}`);
  for (let index = 0; index < count; index++) {
    const key = await callAt(url, 'keys.createKey', { apiId: made.body.data.apiId }, rootKey);
    if (key.status !== 200) throw new Error(`createKey failed: ${JSON.stringify(key.body)}`);
  }
}

async function deliveryLog(url: string, rootKey: string, endpointId: string) {
  const reply = await callAt(url, 'webhooks.listDeliveries', { endpointId }, rootKey);
  if (reply.status !== 200) throw new Error(`listDeliveries failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

async function countRows(em: EntityManager, workspaceId: string, what: 'attempts' | 'pending') {
  const [found] = await rows(
    em,
    what === 'attempts'
      ? sql<{ n: number }>`select count(*)::int as n from webhook_attempts a
          join webhook_deliveries d on d.id = a.delivery_id where d.workspace_id = ${workspaceId}`
      : sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
          where workspace_id = ${workspaceId} and state = 'pending'`,
  );
  return found?.n ?? 0;
}

describe('receivers answering garbage, hanging or slowly', () => {
  let server: ServerProcess;
  let hostile: Awaited<ReturnType<typeof startHostileReceiver>>;

  beforeAll(async () => {
    hostile = await startHostileReceiver();
    // One retry, soon: each delivery ends, succeeded or failed, within the test.
    server = await startServerProcess({ WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_DELAYS_MS: '500' });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await hostile?.close();
  });

  it('are logged as storable text, never hold a worker past the timeout, and every request sent is logged', async () => {
    const rootKey = bootstrapRootKey(server);
    const paths = [
      'nul',
      'invalid-utf8',
      'huge',
      'endless',
      'trickle',
      'garbage',
      'huge-headers',
      'reset',
      'redirect',
      'slowloris',
      'hang',
    ] as const;
    const endpoints = new Map<string, string>();
    for (const path of paths)
      endpoints.set(path, await createEndpoint(server.url, rootKey, { url: hostile.url(path) }));
    await createKeys(server.url, rootKey, 1);

    const logs = new Map<string, Awaited<ReturnType<typeof deliveryLog>>>();
    for (const [path, endpointId] of endpoints) {
      const log = await until(
        () => deliveryLog(server.url, rootKey, endpointId),
        (deliveries) => deliveries.length === 1 && deliveries[0]?.state !== 'pending',
        90_000,
      );
      logs.set(path, log);
    }
    const attemptsOf = (path: string) => logs.get(path)?.[0]?.attempts ?? [];
    const stateOf = (path: string) => logs.get(path)?.[0]?.state;

    expect(NUL_BODY.includes(0)).toBe(true);
    expect(stateOf('nul')).toBe('failed');
    expect(attemptsOf('nul').map(({ statusCode, responseBody }) => ({ statusCode, responseBody }))).toEqual([
      { statusCode: 500, responseBody: 'before\uFFFDafter\uFFFD' },
      { statusCode: 500, responseBody: 'before\uFFFDafter\uFFFD' },
    ]);
    expect(INVALID_UTF8_BODY.toString('latin1')).toMatch(/\xff/);
    for (const attempt of attemptsOf('invalid-utf8')) expect(attempt.responseBody).toMatch(/^ok\uFFFD+!$/);

    for (const [path, body] of [
      ['huge', 'x'.repeat(WEBHOOK_RESPONSE_LOG_BYTES)],
      ['endless', 'y'.repeat(WEBHOOK_RESPONSE_LOG_BYTES)],
    ] as const) {
      expect(stateOf(path)).toBe('succeeded');
      expect(attemptsOf(path)).toEqual([expect.objectContaining({ statusCode: 200, error: null, responseBody: body })]);
    }
    expect(stateOf('trickle')).toBe('succeeded');
    expect(attemptsOf('trickle')[0]?.responseBody).toMatch(/^z*$/);

    const failures = new Map([
      ['garbage', /^the answer is not valid HTTP \(HPE_[A-Z_]+\)$/],
      ['huge-headers', /^the answer is not valid HTTP \(HPE_HEADER_OVERFLOW\)$/],
      ['reset', /^connection closed before an answer$/],
      ['slowloris', new RegExp(`^no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s$`)],
      ['hang', new RegExp(`^no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s$`)],
    ]);
    for (const [path, error] of failures) {
      expect(stateOf(path)).toBe('failed');
      for (const attempt of attemptsOf(path)) {
        expect(attempt).toMatchObject({ statusCode: null, responseBody: null });
        expect(attempt.error).toMatch(error);
      }
    }
    // A redirect is an answer, and is not followed.
    expect(attemptsOf('redirect').map((attempt) => attempt.statusCode)).toEqual([302, 302]);
    expect(hostile.requestsTo('/redirected')).toBe(0);

    // Nothing was sent without being logged: each request the receiver got is an attempt.
    for (const path of paths)
      expect({ path, requests: hostile.requestsTo(`/${path}`) }).toEqual({
        path,
        requests: attemptsOf(path).length,
      });
    await until(hostile.openConnections, (open) => open === 0, HOSTILE_WAIT_MS);
    expect(hostile.openConnections()).toBe(0);
  }, 150_000);
});

describe('targets that are not public', () => {
  let server: ServerProcess;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startServerProcess();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  // Every form of an address that is not public that a URL can name. The endpoints are created
  // disabled, so nothing would be sent to one that got through.
  it.each([
    ['IPv4 as one decimal number', 'http://2130706433/'],
    ['IPv4 in octal', 'http://0177.0.0.1/'],
    ['IPv4 in hex', 'http://0x7f.0.0.1/'],
    ['IPv4 as one hex number', 'http://0x7f000001/'],
    ['IPv4 in short form', 'http://127.1/'],
    ['private IPv4 in short form', 'http://10.1/'],
    ['this network', 'http://0.0.0.0/'],
    ['carrier-grade NAT', 'http://100.64.0.1/'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['IPv4 link-local', 'http://169.254.1.1/'],
    ['IPv4 multicast', 'http://224.0.0.251/'],
    ['IPv4-mapped IPv6, dotted', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6, hex', 'http://[::ffff:a9fe:a9fe]/'],
    ['IPv4-compatible IPv6', 'http://[::127.0.0.1]/'],
    ['SIIT IPv6', 'http://[::ffff:0:7f00:1]/'],
    ['NAT64 of the metadata address', 'http://[64:ff9b::a9fe:a9fe]/'],
    ['local-use NAT64', 'http://[64:ff9b:1::a9fe:a9fe]/'],
    ['6to4', 'http://[2002:7f00:1::]/'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv6 unspecified', 'http://[::]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['IPv6 unique local (the AWS metadata address)', 'http://[fd00:ec2::254]/'],
    ['IPv6 multicast', 'http://[ff02::1]/'],
    ['localhost with the final dot', 'http://localhost./'],
    ['a name under localhost', 'http://api.localhost./'],
  ])('%s (%s) is refused when an endpoint is created or changed', async (_, url) => {
    const rootKey = bootstrapRootKey(server);
    const created = await callAt(
      server.url,
      'webhooks.createEndpoint',
      { url, eventTypes: ['key.created'], enabled: false },
      rootKey,
    );
    expect(created.status).toBe(400);
    const endpointId = await createEndpoint(server.url, rootKey, {
      url: 'https://hooks.example.com/keyplane',
      enabled: false,
    });
    const updated = await callAt(server.url, 'webhooks.updateEndpoint', { endpointId, url }, rootKey);
    expect(updated.status).toBe(400);
  });

  it('a target that became one after the endpoint was made is refused at delivery, the same way for every form', async () => {
    const rootKey = bootstrapRootKey(server);
    const { port } = receiver;
    // Each reaches the receiver on 127.0.0.1 if it is connected to: names resolving to loopback, and
    // address forms a delivery must read as the addresses they are.
    const targets = [
      `http://localhost:${port}/private`,
      `http://localhost.:${port}/private`,
      `http://[::ffff:7f00:1]:${port}/private`,
      `http://127.1:${port}/private`,
      `http://2130706433:${port}/private`,
    ];
    const endpointIds: string[] = [];
    for (const target of targets) {
      const endpointId = await createEndpoint(server.url, rootKey, { url: `http://hooks.keyplane.invalid:${port}/x` });
      // As if its name's DNS answer had changed: the URL the delivery reads.
      await server.database.orm.em
        .fork()
        .getConnection()
        .execute('update webhook_endpoints set url = ? where id = ?', [target, endpointId]);
      endpointIds.push(endpointId);
    }
    await createKeys(server.url, rootKey, 1);
    for (const endpointId of endpointIds) {
      const log = await until(
        () => deliveryLog(server.url, rootKey, endpointId),
        (deliveries) => (deliveries[0]?.attempts.length ?? 0) > 0,
        HOSTILE_WAIT_MS,
      );
      expect(log[0]?.attempts[0]).toMatchObject({ statusCode: null, error: TARGET_NOT_ALLOWED, responseBody: null });
    }
    expect(receiver.received).toEqual([]);
  });
});

describe('workspaces sharing the delivery workers of two nodes', () => {
  const endpointLimit = 50;
  const cluster = useTwoNodes({
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // A failed attempt is not tried again within the test.
    WEBHOOKS_RETRY_DELAYS_MS: '600000',
    LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE: String(endpointLimit),
  });
  let hostile: Awaited<ReturnType<typeof startHostileReceiver>>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    hostile = await startHostileReceiver();
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await hostile?.close();
    await receiver?.close();
  });

  /** A workspace of its own whose endpoint at `path` of the receiver wants its key events; its first key's event arrives. */
  async function neighbourEventArrives(path: string) {
    const neighbour = await otherWorkspace(cluster.database);
    await createEndpoint(cluster.nodeB.url, neighbour.rootKey, { url: receiver.url(path) });
    await createKeys(cluster.nodeB.url, neighbour.rootKey, 1);
    const arrived = await until(
      () => receiver.received.filter((hook) => hook.path === path),
      (hooks) => hooks.length > 0,
      HOSTILE_WAIT_MS,
    );
    expect(arrived).toHaveLength(1);
  }

  it("a workspace whose receivers hang holds some of each node's workers, and another workspace's event goes out meanwhile", async () => {
    const em = cluster.database.orm.em.fork();
    const [hanging] = await rows(em, sql<{ id: string }>`select id from workspaces order by created_at limit 1`);
    const hangingWorkspaceId = hanging?.id ?? '';
    await createEndpoint(cluster.nodeA.url, cluster.rootKey, { url: hostile.url('hang') });
    await createKeys(cluster.nodeA.url, cluster.rootKey, 8);
    await until(hostile.openConnections, (open) => open >= WEBHOOK_WORKSPACE_IN_FLIGHT, HOSTILE_WAIT_MS);

    await neighbourEventArrives('/neighbour-of-hanging');
    // It went out while some of the hanging workspace's deliveries were still waiting for their
    // answers, and before all of them had had an attempt: not after the hanging ones timed out.
    expect(hostile.openConnections()).toBeGreaterThan(0);
    expect(await countRows(em, hangingWorkspaceId, 'attempts')).toBeLessThan(8);
    expect(hostile.mostOpenConnections()).toBeLessThanOrEqual(2 * WEBHOOK_WORKSPACE_IN_FLIGHT);
  });

  it("a workspace's backlog does not go out before another workspace's newer event", async () => {
    const backlog = await otherWorkspace(cluster.database);
    for (let index = 0; index < endpointLimit; index++) {
      await createEndpoint(cluster.nodeA.url, backlog.rootKey, { url: receiver.url('/backlog') });
    }
    // The bound of LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE.
    const refused = await callAt(
      cluster.nodeA.url,
      'webhooks.createEndpoint',
      { url: receiver.url('/backlog'), eventTypes: ['key.created'] },
      backlog.rootKey,
    );
    expect(refused.status).toBe(412);
    // 20 keys: 1,000 deliveries ahead of the neighbour's event.
    await createKeys(cluster.nodeA.url, backlog.rootKey, 20);

    await neighbourEventArrives('/neighbour-of-backlog');
    expect(await countRows(cluster.database.orm.em.fork(), backlog.workspaceId, 'pending')).toBeGreaterThan(0);
  }, 60_000);
});
