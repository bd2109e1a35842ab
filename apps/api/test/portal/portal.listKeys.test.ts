import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { itRejectsPaging } from '../lists.ts';
import { customerCases, customersApart, newCustomer, signInCustomer, useCustomer } from '../portal.ts';

// A portal customer's keys (docs/portal.md#isolation): theirs on the portal's API, never their plaintext.
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'lisa');
const cases = customerCases(api, workspace, 'portal.listKeys', () => ({}));

describe('200', () => {
  it('answers the customer’s keys, oldest first, as keys.getKey answers them and without their plaintext', async () => {
    const lena = await newCustomer(api, workspace.rootKey, 'lena');
    expect(await lena.listed()).toEqual([]);
    const first = await lena.createKey('first');
    const second = await lena.createKey();
    const reply = await lena.call<{ data: { keyId: string }[] }>('portal.listKeys', {});
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

  it('pages with limit and cursor, at /v2 to the Bearer token', async () => {
    const lena = await newCustomer(api, workspace.rootKey, 'lena');
    const keys = [await lena.createKey(), await lena.createKey()];
    const first = await api.call('portal.listKeys', { limit: 1 }, lena.accessToken);
    expect(first.body.data.map((key) => key.keyId)).toEqual([keys[0]?.keyId]);
    expect(first.body.pagination).toEqual({ hasMore: true, cursor: expect.any(String) });
    const next = await api.call(
      'portal.listKeys',
      { limit: 1, cursor: first.body.pagination.cursor },
      lena.accessToken,
    );
    expect(next.body.data.map((key) => key.keyId)).toEqual([keys[1]?.keyId]);
    expect(next.body.pagination.hasMore).toBe(false);
  });

  it('to a session with keys:read alone', async () => {
    const writer = await newCustomer(api, workspace.rootKey, 'dave');
    const { keyId } = await writer.createKey();
    const reader = await signInCustomer(api, workspace.rootKey, writer.portalId, writer.externalId, ['keys:read']);
    expect((await reader.listed()).map((key) => key.keyId)).toEqual([keyId]);
  });
});

describe('400', () => {
  itRejectsPaging(api, 'portal.listKeys', () => customer.accessToken, {
    more: [
      [{ limit: '10' }, 'body.limit'],
      [{ limit: 1.5 }, 'body.limit'],
      [{ cursor: 7 }, 'body.cursor'],
      // The portal decides the API and the customer: a customer names neither.
      [{ apiId: 'api_other' }, 'body.apiId'],
      [{ externalId: 'someone_else' }, 'body.externalId'],
    ],
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => cases.refusesWithoutTheScope('keys:read'));

describe('429', () => {
  it('past 300 requests in a minute of one session, while another session of the customer goes on', async () => {
    const busy = await newCustomer(api, workspace.rootKey, 'uma');
    const calm = await signInCustomer(api, workspace.rootKey, busy.portalId, busy.externalId);
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
    const { bob, expectListedApart } = await customersApart(api, workspace);
    expect(await bob.listed()).toEqual([]);
    const own = await bob.createKey('bob key');
    await expectListedApart([{ keyId: own.keyId, name: 'bob key' }]);
  });
});
