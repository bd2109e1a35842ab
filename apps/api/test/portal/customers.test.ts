import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import {
  callAsCustomer,
  createTestPortal,
  customerSession,
  exchangeAtTrpc,
  expectTrpcProblem,
  openSession,
} from '../portal.ts';

// The customer's side of a portal (docs/portal.md): what a session may reach, and what it may not.
const { api, workspace } = useApiWithWorkspace();

type KeyList = { data: { keyId: string; name: string | null }[] };

const HOUR_MS = 60 * 60 * 1000;
const NO_USAGE = {
  total: 0,
  valid: 0,
  rateLimited: 0,
  insufficientPermissions: 0,
  forbidden: 0,
  disabled: 0,
  expired: 0,
  usageExceeded: 0,
};
type UsagePoint = typeof NO_USAGE & { time: number };

/** A customer's usage points added up over time. */
function summed(points: UsagePoint[]): typeof NO_USAGE {
  const sum = { ...NO_USAGE };
  for (const { time: _time, ...counts } of points) {
    for (const [field, count] of Object.entries(counts)) sum[field as keyof typeof NO_USAGE] += count;
  }
  return sum;
}

/** Every customer procedure that names a key, with an input naming `keyId`. */
const KEY_PROCEDURES: [string, (keyId: string) => unknown][] = [
  ['portal.rerollKey', (keyId) => ({ keyId, expiration: 0 })],
  ['portal.updateKey', (keyId) => ({ keyId, name: 'taken over' })],
  ['portal.deleteKey', (keyId) => ({ keyId })],
  ['portal.getVerifications', (keyId) => ({ keyId, startTime: 0, endTime: 24 * 60 * 60 * 1000 })],
];

describe('two customers of one portal', () => {
  it.each(KEY_PROCEDURES)(
    'never reach each other’s keys: %s answers 404 and changes nothing',
    async (procedure, input) => {
      const { portalId, apiId } = await createTestPortal(api, workspace.rootKey);
      const alice = await customerSession(api, workspace.rootKey, portalId, 'alice');
      const bob = await customerSession(api, workspace.rootKey, portalId, 'bob');
      const created = await callAsCustomer<{ keyId: string }>(
        api,
        'portal.createKey',
        { name: 'alice key' },
        alice.accessToken,
      );
      expect(created.status).toBe(200);
      const aliceKey = created.data.keyId;
      // Another key of the API, of no customer, and one of bob's identity on another API.
      const stray = await api.call('keys.createKey', { apiId, externalId: 'carol' }, workspace.rootKey);
      const strayKey = stray.body.data?.keyId ?? '';

      for (const keyId of [aliceKey, strayKey, 'key_missing']) {
        const reply = await callAsCustomer(api, procedure, input(keyId), bob.accessToken);
        expectTrpcProblem(reply, 404, 'service/data/key_not_found');
      }
      // At /v2 with the access token as a Bearer token too.
      const v2 = await api.post(procedure, input(aliceKey), bob.accessToken);
      expect(v2.status).toBe(404);
      const listed = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, alice.accessToken);
      expect(listed.data.data).toEqual([expect.objectContaining({ keyId: aliceKey, name: 'alice key' })]);
      const bobs = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, bob.accessToken);
      expect(bobs.data.data).toEqual([]);
    },
  );

  it('each lists, renames, rolls and deletes only their own', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const alice = await customerSession(api, workspace.rootKey, portalId, 'alice');
    const bob = await customerSession(api, workspace.rootKey, portalId, 'bob');
    const own = await callAsCustomer<{ keyId: string; key: string }>(api, 'portal.createKey', {}, bob.accessToken);
    expect(own.data.key).toEqual(expect.any(String));
    expect(
      (await callAsCustomer(api, 'portal.updateKey', { keyId: own.data.keyId, name: 'ci' }, bob.accessToken)).status,
    ).toBe(200);
    const rolled = await callAsCustomer<{ keyId: string }>(
      api,
      'portal.rerollKey',
      { keyId: own.data.keyId, expiration: 60_000 },
      bob.accessToken,
    );
    expect(rolled.status).toBe(200);
    const listed = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, bob.accessToken);
    expect(listed.data.data.map((key) => key.keyId).sort()).toEqual([own.data.keyId, rolled.data.keyId].sort());
    expect((await callAsCustomer(api, 'portal.deleteKey', { keyId: own.data.keyId }, bob.accessToken)).status).toBe(
      200,
    );
    const after = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, bob.accessToken);
    expect(after.data.data.map((key) => key.keyId)).toEqual([rolled.data.keyId]);
    expect((await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, alice.accessToken)).data.data).toEqual([]);
  });
});

describe('portal.exchangeCode', () => {
  it('sets the portal_session cookie (HttpOnly, SameSite=Strict), and the code works once', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { code } = await openSession(api, workspace.rootKey, portalId, 'once');
    const first = await exchangeAtTrpc(api, code);
    expect(first.reply.status).toBe(200);
    expect(first.reply.data.accessToken).toMatch(/^pat_/);
    expect(first.cookie).toMatch(/^portal_session=pat_[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Strict$/);
    const again = await exchangeAtTrpc(api, code);
    expectTrpcProblem(again.reply, 401, 'service/authentication/unauthorized');
    expect(again.cookie).toBeUndefined();
  });

  it('answers unknown, used and expired codes with the same 401', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { code: used } = await openSession(api, workspace.rootKey, portalId, 'used');
    await api.call('portal.exchangeCode', { code: used });
    const { code: expired } = await openSession(api, workspace.rootKey, portalId, 'expired');
    await api
      .em()
      .getConnection()
      .execute(
        `update portal_sessions set code_expires_at = now() - interval '1 second' where external_id = 'expired'`,
      );
    const details = new Set<string>();
    for (const code of ['pst_unknown', used, expired]) {
      const reply = await api.post('portal.exchangeCode', { code });
      expect(reply.status).toBe(401);
      details.add(JSON.stringify(reply.body.error));
    }
    expect(details.size).toBe(1);
  });

  it('is refused at /trpc without the portal or dashboard header (a cross-site page cannot call it)', async () => {
    const reply = await callInternal(api, 'portal.exchangeCode', { code: 'pst_x' }, { headers: {} });
    expect(reply.status).toBe(403);
  });
});

describe('scopes', () => {
  it('a session with keys:read only cannot create, roll, rename, delete or read usage (403)', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const writer = await customerSession(api, workspace.rootKey, portalId, 'dave');
    const { data } = await callAsCustomer<{ keyId: string }>(api, 'portal.createKey', {}, writer.accessToken);
    const reader = await customerSession(api, workspace.rootKey, portalId, 'dave', ['keys:read']);
    for (const [procedure, input] of [['portal.createKey', () => ({})], ...KEY_PROCEDURES] as const) {
      const reply = await callAsCustomer(api, procedure, input(data.keyId), reader.accessToken);
      expectTrpcProblem(reply, 403, 'service/authorization/forbidden');
    }
    const listed = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, reader.accessToken);
    expect(listed.data.data.map((key) => key.keyId)).toEqual([data.keyId]);
  });
});

describe('the key policy', () => {
  it('holds maxKeysPerCustomer exactly under 50 concurrent creates (over five sessions)', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey, { keyPolicy: { maxKeysPerCustomer: 7 } });
    const sessions = await Promise.all(
      [1, 2, 3, 4, 5].map(() => customerSession(api, workspace.rootKey, portalId, 'erin')),
    );
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        api.post('portal.createKey', {}, sessions[index % sessions.length]?.accessToken),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.filter((status) => status === 412)).toHaveLength(43);
    const listed = await callAsCustomer<KeyList>(api, 'portal.listKeys', {}, sessions[0]?.accessToken ?? '');
    expect(listed.data.data).toHaveLength(7);
  });

  it('gives created keys the policy’s prefix, credits and lifetime', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey, {
      keyPolicy: { prefix: 'acme', credits: { remaining: 100 }, maxLifetimeMs: 3_600_000 },
    });
    const frank = await customerSession(api, workspace.rootKey, portalId, 'frank');
    const created = await callAsCustomer<{ keyId: string; key: string }>(
      api,
      'portal.createKey',
      {},
      frank.accessToken,
    );
    expect(created.data.key).toMatch(/^acme_/);
    const key = await api.call('keys.getKey', { keyId: created.data.keyId }, workspace.rootKey);
    expect(key.body.data?.credits?.remaining).toBe(100);
    expect(key.body.data?.identity?.externalId).toBe('frank');
    expect(key.body.data?.expires).toBeGreaterThan(Date.now());
  });
});

describe('sessions end', () => {
  it('when revoked, the portal disabled or deleted, or the identity deleted: at once (401)', async () => {
    const ends: [string, (portalId: string) => Promise<unknown>][] = [
      [
        'revoked',
        (portalId) => api.call('portal.revokeSession', { portal: portalId, externalId: 'gina' }, workspace.rootKey),
      ],
      ['disabled', (portalId) => api.call('portal.updatePortal', { portalId, enabled: false }, workspace.rootKey)],
      ['deleted', (portalId) => api.call('portal.deletePortal', { portalId }, workspace.rootKey)],
      ['identity deleted', () => api.call('identities.deleteIdentity', { identity: 'gina' }, workspace.rootKey)],
    ];
    for (const [, end] of ends) {
      const { portalId } = await createTestPortal(api, workspace.rootKey);
      const gina = await customerSession(api, workspace.rootKey, portalId, 'gina');
      expect((await callAsCustomer(api, 'portal.createKey', {}, gina.accessToken)).status).toBe(200);
      await end(portalId);
      const reply = await callAsCustomer(api, 'portal.listKeys', {}, gina.accessToken);
      expectTrpcProblem(reply, 401, 'service/authentication/unauthorized');
    }
  });
});

describe('the audit log', () => {
  it('names the customer (portalEndUser, externalId) for the exchange and each change, and the root key for the session', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { portalId } = await createTestPortal(api, rootKey);
    const { sessionId, accessToken } = await customerSession(api, rootKey, portalId, 'hana');
    const { data } = await callAsCustomer<{ keyId: string }>(api, 'portal.createKey', {}, accessToken);
    await callAsCustomer(api, 'portal.updateKey', { keyId: data.keyId, name: 'renamed' }, accessToken);
    const listed = await callProcedure(api, 'audit.listEvents', { event: 'portal.createKey' }, { rootKey });
    expect(listed.data.data.map((event) => event.actor)).toEqual([
      { type: 'portalEndUser', externalId: 'hana', portalId },
    ]);
    const rows = await api.em().getConnection().execute<
      {
        event: string;
        root_key_id: string | null;
        actor_external_id: string | null;
        resources: Record<string, string>;
      }[]
    >(
      `select event, root_key_id, actor_external_id, resources from audit_events where workspace_id = ? and event like 'portal.%' order by id`,
      [workspaceId],
    );
    const portalEvents = rows.filter((row) => row.event !== 'portal.createPortal');
    expect(portalEvents.map((row) => [row.event, row.root_key_id === null, row.actor_external_id])).toEqual([
      ['portal.createSession', false, null],
      ['portal.exchangeCode', true, 'hana'],
      ['portal.createKey', true, 'hana'],
      ['portal.updateKey', true, 'hana'],
    ]);
    expect(portalEvents[0]?.resources).toEqual({ portalId, externalId: 'hana', sessionId });
    expect(portalEvents[2]?.resources).toMatchObject({ portalId, sessionId, keyId: data.keyId });
  });
});

describe('usage and webhooks', () => {
  it('portal.getVerifications answers the customer’s verifications per bucket and outcome, in total or of one key, and no one else’s', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const rita = await customerSession(api, workspace.rootKey, portalId, 'rita');
    const sam = await customerSession(api, workspace.rootKey, portalId, 'sam');
    const first = await callAsCustomer<{ keyId: string; key: string }>(api, 'portal.createKey', {}, rita.accessToken);
    const second = await callAsCustomer<{ keyId: string; key: string }>(api, 'portal.createKey', {}, rita.accessToken);
    const other = await callAsCustomer<{ key: string }>(api, 'portal.createKey', {}, sam.accessToken);
    for (const key of [first.data.key, first.data.key, second.data.key, other.data.key])
      await api.call('keys.verifyKey', { key }, workspace.rootKey);
    // A key without permissions asked for one: INSUFFICIENT_PERMISSIONS.
    await api.call('keys.verifyKey', { key: first.data.key, permissions: 'documents.read' }, workspace.rootKey);
    await api.services.verifications.flush();
    const range = { startTime: Date.now() - HOUR_MS, endTime: Date.now() + HOUR_MS };

    const all = await callAsCustomer<UsagePoint[]>(api, 'portal.getVerifications', range, rita.accessToken);
    expect(all.status).toBe(200);
    // Hourly over two hours: two buckets (three when startTime falls on the hour), zero-filled, oldest first.
    expect(all.data.length).toBeGreaterThanOrEqual(2);
    all.data.forEach((point, index) => {
      expect(point.time % HOUR_MS).toBe(0);
      if (index > 0) expect(point.time - (all.data[index - 1]?.time ?? 0)).toBe(HOUR_MS);
    });
    expect(summed(all.data)).toEqual({ ...NO_USAGE, total: 4, valid: 3, insufficientPermissions: 1 });

    const one = await callAsCustomer<UsagePoint[]>(
      api,
      'portal.getVerifications',
      { ...range, keyId: first.data.keyId },
      rita.accessToken,
    );
    expect(summed(one.data)).toEqual({ ...NO_USAGE, total: 3, valid: 2, insufficientPermissions: 1 });

    // At /v2 the points are the envelope's data, as the reference's SDK parses them.
    const v2 = await api.post<UsagePoint[]>('portal.getVerifications', range, rita.accessToken);
    expect(v2.status).toBe(200);
    expect(v2.body.data).toEqual(all.data);

    const backwards = await callAsCustomer(
      api,
      'portal.getVerifications',
      { startTime: 10, endTime: 5 },
      rita.accessToken,
    );
    expectTrpcProblem(backwards, 400, 'service/application/invalid_input');
  });

  it('a key created in the portal fires key.created as any key does', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    await api.call(
      'webhooks.createEndpoint',
      { url: 'https://hooks.example.com/k', eventTypes: ['key.created'] },
      rootKey,
    );
    const { portalId } = await createTestPortal(api, rootKey);
    const tom = await customerSession(api, rootKey, portalId, 'tom');
    const { data } = await callAsCustomer<{ keyId: string }>(api, 'portal.createKey', {}, tom.accessToken);
    const events = await api
      .em()
      .getConnection()
      .execute<{ type: string; payload: string }[]>(
        'select type, payload::text as payload from webhook_events where workspace_id = ?',
        [workspaceId],
      );
    expect(events.map((event) => event.type)).toEqual(['key.created']);
    expect(events[0]?.payload).toContain(data.keyId);
  });
});

describe('429', () => {
  it('past 300 requests in a minute of one session, while another session of the customer goes on', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const busy = await customerSession(api, workspace.rootKey, portalId, 'uma');
    const calm = await customerSession(api, workspace.rootKey, portalId, 'uma');
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, () => api.post('portal.listKeys', {}, busy.accessToken)),
      );
      statuses.push(...replies.map((reply) => reply.status));
    }
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await api.post('portal.listKeys', {}, busy.accessToken);
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toMatch(/portal_session_throttled$/);
    expect((await api.post('portal.listKeys', {}, calm.accessToken)).status).toBe(200);
  });
});
