import { beforeAll, describe, expect, it } from 'vitest';
import { type TestWorkspace, useApi } from '../harness.ts';
import { callInternal } from '../internal.ts';

const api = useApi();
let workspace: TestWorkspace;

beforeAll(async () => {
  workspace = await api.workspace();
});

const update = (input: unknown, rootKey = workspace.rootKey) =>
  callInternal(api, 'rootKeys.updateRootKey', input, { rootKey });

describe('200', () => {
  it('expires a key now: the next call is refused', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    expect((await api.post('apis.createApi', { name: 'cached' }, target.rootKey)).status).toBe(200);
    expect((await update({ rootKeyId: target.rootKeyId, expires: Date.now() })).status).toBe(200);
    const refused = await api.post('apis.createApi', { name: 'after' }, target.rootKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.detail).toBe('The provided root key has expired.');
  });

  it('sets a later expiry, and null removes it', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api'], { expiresAt: new Date(Date.now() - 1000) });
    expect((await api.post('apis.createApi', { name: 'expired' }, target.rootKey)).status).toBe(401);
    expect((await update({ rootKeyId: target.rootKeyId, expires: null })).status).toBe(200);
    expect((await api.post('apis.createApi', { name: 'revived' }, target.rootKey)).status).toBe(200);
    const later = Date.now() + 86_400_000;
    expect((await update({ rootKeyId: target.rootKeyId, expires: later })).status).toBe(200);
    const listed = await callInternal<{ rootKeys: Array<{ rootKeyId: string; expiresAt: number | null }> }>(
      api,
      'rootKeys.listRootKeys',
      undefined,
      { rootKey: workspace.rootKey },
    );
    expect(listed.data.rootKeys.find((rootKey) => rootKey.rootKeyId === target.rootKeyId)?.expiresAt).toBe(later);
  });
});

describe('400', () => {
  it.each([
    [{ rootKeyId: 'rk_x' }],
    [{ rootKeyId: 'rk_x', expires: 'soon' }],
    [{ expires: null }],
    [{ rootKeyId: 'rk_\u0000', expires: null }],
  ])('%j', async (input) => {
    expect((await update(input)).status).toBe(400);
  });

  it('an expiry in the past', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    const reply = await update({ rootKeyId: target.rootKeyId, expires: Date.now() - 3_600_000 });
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toBe('`expires` must not be in the past.');
  });
});

describe('401', () => {
  it('with an unknown root key', async () => {
    expect((await update({ rootKeyId: 'rk_x', expires: null }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without workspace.*.manage_root_keys', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_api']);
    expect((await update({ rootKeyId: target.rootKeyId, expires: Date.now() }, rootKey)).status).toBe(403);
    expect((await api.post('apis.createApi', { name: 'still' }, target.rootKey)).status).toBe(200);
  });
});

describe('404', () => {
  it('for an unknown root key id', async () => {
    expect((await update({ rootKeyId: 'rk_00000000000000000000000000000000', expires: null })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot expire another workspace's root key", async () => {
    const other = await api.workspace();
    const theirs = await other.rootKeyWith(['api.*.create_api']);
    expect((await update({ rootKeyId: theirs.rootKeyId, expires: Date.now() })).status).toBe(404);
    expect((await api.post('apis.createApi', { name: 'theirs' }, theirs.rootKey)).status).toBe(200);
  });
});
