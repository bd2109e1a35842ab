import { keyStatus } from '@keyplane/core/rules';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { type NewKeyInput, useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey } from '../harness.ts';
import { callInternal, callProcedure } from '../internal.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();

const listPage = (input: InputOf<'apis.listKeysPage'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'apis.listKeysPage', input, { rootKey });

const newKey = async (apiId: string, body: NewKeyInput = {}, rootKey = workspace.rootKey) =>
  (await createTestKey(api, rootKey, { apiId, ...body })).keyId;

const keyIdsOf = (reply: Awaited<ReturnType<typeof listPage>>) => reply.data.keys.map((key) => key.keyId);

/**
 * An API whose keys each stand for a status: the names say which. `refilled` has no credits left but
 * a daily refill whose boundary passed: verification would refill it, so it is enabled, not out.
 */
async function apiWithEveryStatus() {
  const apiId = await createTestApi(api, workspace.rootKey);
  const ids = {
    plain: await newKey(apiId, { name: 'c-plain' }),
    expired: await newKey(apiId, { name: 'e-expired', expires: Date.now() + 60_000 }),
    disabled: await newKey(apiId, { name: 'b-disabled', enabled: false, credits: { remaining: 1 } }),
    out: await newKey(apiId, { name: 'd-out', credits: { remaining: 0 } }),
    low: await newKey(apiId, { name: 'a-low', credits: { remaining: 10 } }),
    lowRefill: await newKey(apiId, {
      name: 'f-low-refill',
      credits: { remaining: 100, refill: { interval: 'daily', amount: 1000 } },
    }),
    plenty: await newKey(apiId, { name: 'g-plenty', credits: { remaining: 11 } }),
    refilled: await newKey(apiId, {
      name: 'h-refilled',
      credits: { remaining: 0, refill: { interval: 'daily', amount: 5 } },
    }),
  };
  await rows(api.em(), sql`update keys set expires_at = now() - interval '1 minute' where id = ${ids.expired}`);
  await rows(api.em(), sql`update keys set last_refill_at = now() - interval '2 days' where id = ${ids.refilled}`);
  return { apiId, ids };
}

describe('200', () => {
  it('filters by each status exactly as verification judges it, with the total', async () => {
    const { apiId, ids } = await apiWithEveryStatus();
    const byStatus = async (status: InputOf<'apis.listKeysPage'>['status']) => {
      const reply = await listPage({ apiId, status, sort: 'name', direction: 'asc' });
      expect(reply.status).toBe(200);
      expect(reply.data.total).toBe(reply.data.keys.length);
      return keyIdsOf(reply);
    };
    expect(await byStatus('expired')).toEqual([ids.expired]);
    expect(await byStatus('disabled')).toEqual([ids.disabled]);
    expect(await byStatus('out_of_credits')).toEqual([ids.out]);
    expect(await byStatus('low_credits')).toEqual([ids.low, ids.lowRefill]);
    expect(await byStatus('enabled')).toEqual([ids.low, ids.plain, ids.lowRefill, ids.plenty, ids.refilled]);
    // Every row's status, as the dashboard derives it from the row with core's keyStatus, agrees.
    const all = await listPage({ apiId });
    expect(all.data.total).toBe(8);
    const now = Date.now();
    const statusOf = Object.fromEntries(
      all.data.keys.map((key) => [
        key.keyId,
        keyStatus({ enabled: key.enabled, expires: key.expires, remainingCredits: key.credits?.remaining }, now),
      ]),
    );
    expect(statusOf[ids.refilled]).toBe('enabled');
    expect(all.data.keys.find((key) => key.keyId === ids.refilled)?.credits?.remaining).toBe(5);
    expect(statusOf[ids.out]).toBe('out_of_credits');
    expect(statusOf[ids.expired]).toBe('expired');
  });

  it('sorts by a column either way across pages, newest first by default', async () => {
    const { apiId, ids } = await apiWithEveryStatus();
    const byName = [ids.low, ids.disabled, ids.plain, ids.out, ids.expired, ids.lowRefill, ids.plenty, ids.refilled];
    const first = await listPage({ apiId, sort: 'name', direction: 'asc', pageSize: 3 });
    const second = await listPage({ apiId, sort: 'name', direction: 'asc', pageSize: 3, page: 2 });
    const third = await listPage({ apiId, sort: 'name', direction: 'asc', pageSize: 3, page: 3 });
    expect([first, second, third].flatMap(keyIdsOf)).toEqual(byName);
    expect([first, second, third].map((reply) => reply.data.total)).toEqual([8, 8, 8]);
    expect(keyIdsOf(await listPage({ apiId, sort: 'name', direction: 'desc' }))).toEqual([...byName].reverse());
    expect(keyIdsOf(await listPage({ apiId }))).toEqual(Object.values(ids).reverse());
  });

  it('sorts credits by the balance a reader sees, unlimited as the most', async () => {
    const { apiId, ids } = await apiWithEveryStatus();
    const ascending = keyIdsOf(await listPage({ apiId, sort: 'credits', direction: 'asc' }));
    expect(ascending.slice(0, 5)).toEqual([ids.out, ids.disabled, ids.refilled, ids.low, ids.plenty]);
    expect(ascending.slice(5, 6)).toEqual([ids.lowRefill]);
    expect(new Set(ascending.slice(6))).toEqual(new Set([ids.plain, ids.expired]));
    const descending = keyIdsOf(await listPage({ apiId, sort: 'credits', direction: 'desc' }));
    expect(new Set(descending.slice(0, 2))).toEqual(new Set([ids.plain, ids.expired]));
  });

  it("searches the name, key id, start and the identity's external id, case-insensitively", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const owned = await newKey(apiId, { name: 'owned', externalId: 'Customer_Acme' });
    const prefixed = await newKey(apiId, { prefix: 'srch' });
    await newKey(apiId, { name: 'other' });
    const search = async (text: string) => {
      const reply = await listPage({ apiId, search: text });
      expect(reply.data.total).toBe(reply.data.keys.length);
      return keyIdsOf(reply);
    };
    expect(await search('customer_acme')).toEqual([owned]);
    expect(await search('OWNED')).toEqual([owned]);
    expect(await search(prefixed)).toEqual([prefixed]);
    expect(await search('srch_')).toEqual([prefixed]);
    expect(await search('nothing-like-it')).toEqual([]);
  });

  it('answers a page past the last with no keys and the total', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId);
    const reply = await listPage({ apiId, page: 5, pageSize: 10 });
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ keys: [], total: 1 });
  });

  it('leaves deleted keys out', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const kept = await newKey(apiId);
    const deleted = await newKey(apiId);
    expect((await api.post('keys.deleteKey', { keyId: deleted }, workspace.rootKey)).status).toBe(200);
    const reply = await listPage({ apiId });
    expect(reply.data.total).toBe(1);
    expect(keyIdsOf(reply)).toEqual([kept]);
  });

  it.each([[['api.API_ID.read_key', 'api.API_ID.read_api']], [['api.*.read_key', 'api.*.read_api']]])(
    'with the grants %j',
    async (grants) => {
      const apiId = await createTestApi(api, workspace.rootKey);
      const keyId = await newKey(apiId);
      const { rootKey } = await workspace.rootKeyWith(grants.map((grant) => grant.replace('API_ID', apiId)));
      const reply = await listPage({ apiId }, rootKey);
      expect(reply.status).toBe(200);
      expect(keyIdsOf(reply)).toEqual([keyId]);
    },
  );
});

describe('400', () => {
  it.each([
    ['sort', { sort: 'hash' }],
    ['direction', { direction: 'up' }],
    ['status', { status: 'revoked' }],
    ['page', { page: 0 }],
    ['pageSize', { pageSize: 101 }],
    ['search', { search: 'x'.repeat(257) }],
    ['apiId', { apiId: 'api-1' }],
    ['unknown', { unknown: true }],
  ])('rejects a bad %s, naming it', async (field, input) => {
    const reply = await callInternal(
      api,
      'apis.listKeysPage',
      { apiId: 'api_whatever', ...input },
      { rootKey: workspace.rootKey },
    );
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toContain(field);
  });
});

describe('403', () => {
  it('without read_key, naming it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.read_api`]);
    const reply = await listPage({ apiId }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toBe(`Missing permission: 'api.${apiId}.read_key'.`);
  });

  it('without read_api, naming it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    const reply = await listPage({ apiId }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toBe(`Missing permission: 'api.${apiId}.read_api'.`);
  });

  it('with the grants for another API only', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.api_other.read_key', 'api.api_other.read_api']);
    expect((await listPage({ apiId }, rootKey)).status).toBe(403);
  });

  it('for an API that does not exist, before it is looked up', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_key']);
    const reply = await listPage({ apiId: 'api_doesnotexist' }, rootKey);
    expect(reply.error?.message).toBe(
      "Missing permissions: 'api.api_doesnotexist.read_key', 'api.api_doesnotexist.read_api'.",
    );
  });
});

describe('404', () => {
  it('for an API that does not exist, to a root key that may read every API', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key', 'api.*.read_api']);
    const reply = await listPage({ apiId: 'api_doesnotexist' }, rootKey);
    expect(reply.status).toBe(404);
  });

  it('for a deleted API', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    expect((await api.post('apis.deleteApi', { apiId }, workspace.rootKey)).status).toBe(200);
    expect((await listPage({ apiId })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("does not find another workspace's API, even with every permission", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId);
    const intruder = await api.workspace();
    expect((await listPage({ apiId }, intruder.rootKey)).status).toBe(404);
  });

  it("finds none of another workspace's keys by its identity's external id", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId, { externalId: 'victim_customer' });
    const intruder = await api.workspace();
    const intruderApi = await createTestApi(api, intruder.rootKey);
    const own = await newKey(intruderApi, {}, intruder.rootKey);
    expect(keyIdsOf(await listPage({ apiId: intruderApi }, intruder.rootKey))).toEqual([own]);
    const searched = await listPage({ apiId: intruderApi, search: 'victim_customer' }, intruder.rootKey);
    expect(searched.status).toBe(200);
    expect(searched.data).toEqual({ keys: [], total: 0 });
  });
});
