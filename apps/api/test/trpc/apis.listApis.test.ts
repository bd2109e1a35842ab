import { beforeAll, describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();
let apiIds: string[];

const list = (input: InputOf<'apis.listApis'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'apis.listApis', input, { rootKey });

beforeAll(async () => {
  apiIds = [];
  for (const name of ['alpha', 'beta', 'gamma']) {
    apiIds.push((await api.call('apis.createApi', { name }, workspace.rootKey)).body.data.apiId);
  }
  const deleted = (await api.call('apis.createApi', { name: 'deleted' }, workspace.rootKey)).body.data;
  await api.post('apis.deleteApi', { apiId: deleted.apiId }, workspace.rootKey);
});

describe('200', () => {
  it('pages through the live APIs in creation order', async () => {
    const first = await list({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.data.data.map((item) => item.name)).toEqual(['alpha', 'beta']);
    expect(first.data.pagination.hasMore).toBe(true);
    const second = await list({ limit: 2, cursor: first.data.pagination.cursor });
    expect(second.data.data.map((item) => item.id)).toEqual([apiIds[2]]);
    expect(second.data.pagination).toEqual({ hasMore: false });
    expect(second.data.data[0]?.keyAuth.enabled).toBe(true);
  });

  it('searches by name or id, case-insensitively', async () => {
    expect((await list({ search: 'GAM' })).data.data.map((item) => item.name)).toEqual(['gamma']);
    expect((await list({ search: apiIds[1] })).data.data.map((item) => item.name)).toEqual(['beta']);
  });
});

describe('200 for a root key scoped to some APIs', () => {
  it('lists only the APIs its read_api grants name, in pages', async () => {
    const { rootKey } = await workspace.rootKeyWith([`api.${apiIds[0]}.read_api`, `api.${apiIds[2]}.read_api`]);
    const first = await list({ limit: 1 }, rootKey);
    expect(first.status).toBe(200);
    expect(first.data.data.map((item) => item.name)).toEqual(['alpha']);
    const second = await list({ limit: 1, cursor: first.data.pagination.cursor }, rootKey);
    expect(second.data.data.map((item) => item.name)).toEqual(['gamma']);
    expect(second.data.pagination).toEqual({ hasMore: false });
    expect((await list({ search: 'beta' }, rootKey)).data.data).toEqual([]);
  });
});

describe('400', () => {
  it.each([[{ limit: 0 }], [{ limit: 101 }], [{ cursor: 'not-a-cursor' }], [{ unknown: true }]])(
    '%j',
    async (input) => {
      expect((await callInternal(api, 'apis.listApis', input, { rootKey: workspace.rootKey })).status).toBe(400);
    },
  );
});

describe('403', () => {
  it('without any read_api grant, naming the wildcard', async () => {
    const { rootKey } = await workspace.rootKeyWith([`api.${apiIds[0]}.update_api`]);
    expectInternalMissingPermissions(await list({}, rootKey), 'api.*.read_api');
  });
});

describe('cross-workspace isolation', () => {
  it('lists only the caller workspace APIs, and refuses its cursors to others', async () => {
    const other = await api.workspace();
    await api.post('apis.createApi', { name: 'theirs' }, other.rootKey);
    expect((await list({})).data.data.map((item) => item.name)).toEqual(['alpha', 'beta', 'gamma']);
    const cursor = (await list({ limit: 1 })).data.pagination.cursor;
    expect((await list({ cursor }, other.rootKey)).status).toBe(400);
  });
});
