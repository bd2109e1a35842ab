import { describe, expect, it } from 'vitest';
import { itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callProcedure } from '../internal.ts';
import {
  customerCases,
  customersApart,
  newCustomer,
  sessionAuditEvents,
  signInCustomer,
  useCustomer,
} from '../portal.ts';

// A customer's new key, under the portal's key policy (docs/portal.md#portals).
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'cora');
const cases = customerCases(api, workspace, 'portal.createKey', () => ({}));

describe('200', () => {
  it('answers the new key’s plaintext once; the key verifies and the customer lists it', async () => {
    const { keyId, key } = await customer.createKey('ci');
    expect(keyId).toMatch(/^key_/);
    expect(key).toEqual(expect.any(String));
    const verified = await api.call('keys.verifyKey', { key }, workspace.rootKey);
    expect(verified.body.data).toMatchObject({ valid: true, keyId });
    expect(await customer.listed()).toContainEqual({ keyId, name: 'ci' });
  });

  it('gives created keys the policy’s prefix, credits and lifetime, and the customer’s identity', async () => {
    const frank = await newCustomer(api, workspace.rootKey, 'frank', {
      keyPolicy: { prefix: 'acme', credits: { remaining: 100 }, maxLifetimeMs: 3_600_000 },
    });
    const created = await frank.createKey();
    expect(created.key).toMatch(/^acme_/);
    const key = await api.call('keys.getKey', { keyId: created.keyId }, workspace.rootKey);
    expect(key.body.data?.credits?.remaining).toBe(100);
    expect(key.body.data?.identity?.externalId).toBe(frank.externalId);
    expect(key.body.data?.expires).toBeGreaterThan(Date.now());
    expect(key.body.data?.expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it('is recorded in the audit log with the customer as actor (portalEndUser), the portal, the session and the key', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const hana = await newCustomer(api, rootKey, 'hana');
    const { keyId } = await hana.createKey();
    const listed = await callProcedure(api, 'audit.listEvents', { event: 'portal.createKey' }, { rootKey });
    const { portalId, externalId, sessionId } = hana;
    expect(listed.data.data.map((event) => event.actor)).toEqual([{ type: 'portalEndUser', externalId, portalId }]);
    const events = await sessionAuditEvents(api, workspaceId, sessionId);
    expect(events.map(({ event }) => event)).toEqual([
      ['portal.createSession', false, null],
      ['portal.exchangeCode', true, externalId],
      ['portal.createKey', true, externalId],
    ]);
    expect(events[2]?.resources).toMatchObject({ portalId, sessionId, keyId });
  });

  it('fires key.created as any key does', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const endpoint = { url: 'https://hooks.example.com/k', eventTypes: ['key.created' as const] };
    await api.call('webhooks.createEndpoint', endpoint, rootKey);
    const tom = await newCustomer(api, rootKey, 'tom');
    const { keyId } = await tom.createKey();
    const events = await api
      .em()
      .getConnection()
      .execute<{ type: string; payload: string }[]>(
        'select type, payload::text as payload from webhook_events where workspace_id = ?',
        [workspaceId],
      );
    expect(events.map((event) => event.type)).toEqual(['key.created']);
    expect(events[0]?.payload).toContain(keyId);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.createKey', () => customer.accessToken, [
    [{ name: '' }, 'body.name'],
    [{ name: 'n'.repeat(256) }, 'body.name'],
    [{ name: 7 }, 'body.name'],
    // The key policy decides the rest: a customer sets nothing else.
    [{ prefix: 'mine' }, 'body.prefix'],
    [{ expires: 4102444800000 }, 'body.expires'],
    [{ externalId: 'someone_else' }, 'body.externalId'],
  ]);

  it('creates nothing for a refused input', async () => {
    const before = await customer.listed();
    const refused = await api.post('portal.createKey', { name: 'ok', credits: { remaining: 1 } }, customer.accessToken);
    expect(refused.status).toBe(400);
    expect(await customer.listed()).toEqual(before);
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => cases.refusesWithoutTheScope('keys:create'));

describe('412', () => {
  it('holds maxKeysPerCustomer exactly under 50 concurrent creates (over five sessions)', async () => {
    const erin = await newCustomer(api, workspace.rootKey, 'erin', { keyPolicy: { maxKeysPerCustomer: 7 } });
    const more = [1, 2, 3, 4].map(() => signInCustomer(api, workspace.rootKey, erin.portalId, erin.externalId));
    const sessions = [erin, ...(await Promise.all(more))];
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        api.post('portal.createKey', {}, sessions[index % sessions.length]?.accessToken),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.filter((status) => status === 412)).toHaveLength(43);
    const refused = replies.find((reply) => reply.status === 412);
    expect(refused?.body.error.type).toMatch(/precondition_failed$/);
    expect(refused?.body.error.detail).toContain('at most 7 keys');
    expect(await erin.listed()).toHaveLength(7);
  });

  it('counts live keys only: a deleted key makes room for another', async () => {
    const erin = await newCustomer(api, workspace.rootKey, 'erin', { keyPolicy: { maxKeysPerCustomer: 1 } });
    const { keyId } = await erin.createKey();
    expect((await erin.call('portal.createKey', {})).status).toBe(412);
    expect((await erin.call('portal.deleteKey', { keyId })).status).toBe(200);
    expect((await erin.call('portal.createKey', {})).status).toBe(200);
  });
});

describe('cross-customer isolation', () => {
  it('creates the key for this customer on this portal’s API only: no one else lists it', async () => {
    const { bob, expectListedApart } = await customersApart(api, workspace);
    const own = await bob.createKey('bob key');
    await expectListedApart([{ keyId: own.keyId, name: 'bob key' }]);
  });
});
