import { beforeAll, describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();
let namespaceIds: string[];

const list = (input: InputOf<'ratelimit.listNamespaces'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'ratelimit.listNamespaces', input, { rootKey });
const create = (name: string, rootKey = workspace.rootKey) =>
  callProcedure(api, 'ratelimit.createNamespace', { name }, { rootKey });

beforeAll(async () => {
  namespaceIds = [];
  for (const name of ['email', 'login', 'sms']) namespaceIds.push((await create(name)).data.namespaceId);
  const gone = await create('gone');
  await callInternal(
    api,
    'ratelimit.deleteNamespace',
    { namespace: gone.data.namespaceId },
    { rootKey: workspace.rootKey },
  );
});

describe('200', () => {
  it('pages through the live namespaces in creation order', async () => {
    const first = await list({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.data.data.map((item) => item.name)).toEqual(['email', 'login']);
    const second = await list({ limit: 2, cursor: first.data.pagination.cursor });
    expect(second.data.data.map((item) => item.id)).toEqual([namespaceIds[2]]);
    expect(second.data.pagination.hasMore).toBe(false);
  });

  it('searches by name', async () => {
    expect((await list({ search: 'LOG' })).data.data.map((item) => item.name)).toEqual(['login']);
  });
});

describe('400', () => {
  it.each([[{ limit: 0 }], [{ cursor: 'x' }]])('%j', async (input) => {
    expect((await list(input)).status).toBe(400);
  });
});

describe('200 for a root key scoped to some namespaces', () => {
  it('lists only the namespaces its read_namespace grants name', async () => {
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${namespaceIds[1]}.read_namespace`]);
    const reply = await list({}, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.data.data.map((item) => item.id)).toEqual([namespaceIds[1]]);
  });
});

describe('403', () => {
  it('without any read_namespace grant, naming the wildcard', async () => {
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${namespaceIds[0]}.limit`]);
    expectInternalMissingPermissions(await list({}, rootKey), 'ratelimit.*.read_namespace');
  });
});

describe('cross-workspace isolation', () => {
  it('lists only the caller workspace namespaces', async () => {
    const other = await api.workspace();
    await create('theirs', other.rootKey);
    expect((await list({})).data.data.map((item) => item.name)).toEqual(['email', 'login', 'sms']);
  });
});
