import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { itRejectsPaging } from '../lists.ts';
import {
  type CustomerKeyList,
  callAsCustomer,
  createCustomerKey,
  createTestPortal,
  customerSession,
  customersApart,
  expectListedApart,
  itRefusesWithoutALiveSession,
  itRefusesWithoutTheScope,
  listedKeys,
  newCustomerId,
  useCustomer,
} from '../portal.ts';

// A portal customer's keys (docs/portal.md#isolation): theirs on the portal's API, never their plaintext.
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'lisa');
const listKeys = { procedure: 'portal.listKeys', input: () => ({}) };

describe('200', () => {
  it('answers the customer’s keys, newest last, as keys.getKey answers them and without their plaintext', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, newCustomerId('lena'));
    expect(await listedKeys(api, accessToken)).toEqual([]);
    const first = await createCustomerKey(api, accessToken, 'first');
    const second = await createCustomerKey(api, accessToken);
    const reply = await callAsCustomer<CustomerKeyList>(api, 'portal.listKeys', {}, accessToken);
    expect(reply.data).toEqual({
      data: [
        expect.objectContaining({ keyId: first.keyId, name: 'first' }),
        expect.objectContaining({ keyId: second.keyId }),
      ],
      pagination: { hasMore: false },
    });
    expect(JSON.stringify(reply.data)).not.toContain(first.key);
    const fromRootKey = await api.call('keys.getKey', { keyId: first.keyId }, workspace.rootKey);
    expect(reply.data.data[0]).toEqual(fromRootKey.body.data);
  });

  it('pages with limit and cursor, and answers the same at /v2 to the Bearer token', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, newCustomerId('lena'));
    const keys = [await createCustomerKey(api, accessToken), await createCustomerKey(api, accessToken)];
    const first = await api.post('portal.listKeys', { limit: 1 }, accessToken);
    expect(first.body.data.map((key: { keyId: string }) => key.keyId)).toEqual([keys[0]?.keyId]);
    expect(first.body.pagination).toEqual({ hasMore: true, cursor: expect.any(String) });
    const next = await api.post('portal.listKeys', { limit: 1, cursor: first.body.pagination.cursor }, accessToken);
    expect(next.body.data.map((key: { keyId: string }) => key.keyId)).toEqual([keys[1]?.keyId]);
    expect(next.body.pagination.hasMore).toBe(false);
  });

  it('to a session with keys:read alone', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const externalId = newCustomerId('dave');
    const writer = await customerSession(api, workspace.rootKey, portalId, externalId);
    const { keyId } = await createCustomerKey(api, writer.accessToken);
    const reader = await customerSession(api, workspace.rootKey, portalId, externalId, ['keys:read']);
    expect((await listedKeys(api, reader.accessToken)).map((key) => key.keyId)).toEqual([keyId]);
  });
});

describe('400', () => {
  itRejectsPaging(api, 'portal.listKeys', () => customer.accessToken, {
    more: [
      [{ limit: '10' }, 'body.limit'],
      [{ limit: 1.5 }, 'body.limit'],
      [{ cursor: 7 }, 'body.cursor'],
      // The portal decides the API: a customer cannot name another.
      [{ apiId: 'api_other' }, 'body.apiId'],
      [{ externalId: 'someone_else' }, 'body.externalId'],
    ],
  });
});

describe('401', () => {
  itRefusesWithoutALiveSession(api, workspace, listKeys);
});

describe('403', () => {
  itRefusesWithoutTheScope(api, workspace, listKeys, 'keys:read', [['keys:create', 'analytics:read']]);
});

describe('429', () => {
  it('past 300 requests in a minute of one session, while another session of the customer goes on', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const externalId = newCustomerId('uma');
    const busy = await customerSession(api, workspace.rootKey, portalId, externalId);
    const calm = await customerSession(api, workspace.rootKey, portalId, externalId);
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

describe('cross-customer isolation', () => {
  it('lists only the customer’s keys on this portal: not another customer’s, nor theirs on another portal or in another workspace', async () => {
    const { bob, keys, listings } = await customersApart(api, workspace);
    expect(await listedKeys(api, bob.accessToken)).toEqual([]);
    const own = await createCustomerKey(api, bob.accessToken, 'bob key');
    expectListedApart(await listings(), keys, [{ keyId: own.keyId, name: 'bob key' }]);
  });
});
