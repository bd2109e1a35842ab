import { describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';

const { api, workspace } = useApiWithWorkspace();

const revoke = (rootKeyId: string, rootKey = workspace.rootKey) =>
  callInternal(api, 'rootKeys.revokeRootKey', { rootKeyId }, { rootKey });

describe('200', () => {
  it('refuses the key at once, even after it was cached by a successful call', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    expect((await api.post('apis.createApi', { name: 'cached' }, target.rootKey)).status).toBe(200);
    expect((await revoke(target.rootKeyId)).status).toBe(200);
    const refused = await api.post('apis.createApi', { name: 'after' }, target.rootKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.detail).toBe('The provided root key has been revoked.');
  });

  it('is idempotent, keeping the first revocation time', async () => {
    const target = await workspace.rootKeyWith(['api.*.read_api']);
    await revoke(target.rootKeyId);
    const list = async () =>
      (await callProcedure(api, 'rootKeys.listRootKeys', undefined, { rootKey: workspace.rootKey })).data.data.find(
        (rootKey) => rootKey.rootKeyId === target.rootKeyId,
      )?.revokedAt;
    const first = await list();
    expect(first).toEqual(expect.any(Number));
    expect((await revoke(target.rootKeyId)).status).toBe(200);
    expect(await list()).toBe(first);
  });

  it('by a key holding every permission of the revoked key, and no more', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api', 'api.*.read_api']);
    const { rootKey } = await workspace.rootKeyWith([
      'workspace.*.manage_root_keys',
      'api.*.create_api',
      'apis.*.read_api',
    ]);
    expect((await revoke(target.rootKeyId, rootKey)).status).toBe(200);
    expect((await api.post('apis.createApi', { name: 'after' }, target.rootKey)).status).toBe(401);
  });

  it('by a key of itself', async () => {
    const own = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.create_api']);
    expect((await revoke(own.rootKeyId, own.rootKey)).status).toBe(200);
    expect((await api.post('apis.createApi', { name: 'after' }, own.rootKey)).status).toBe(401);
  });
});

describe('400', () => {
  it('without a rootKeyId', async () => {
    expect((await callInternal(api, 'rootKeys.revokeRootKey', {}, { rootKey: workspace.rootKey })).status).toBe(400);
  });

  it('with a rootKeyId that cannot be an id (U+0000 would reach PostgreSQL as an error)', async () => {
    expect((await revoke('rk_\u0000')).status).toBe(400);
  });
});

describe('403', () => {
  it('without workspace.*.manage_root_keys, revoking nothing', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expect((await revoke(target.rootKeyId, rootKey)).status).toBe(403);
    expect((await api.post('apis.createApi', { name: 'still' }, target.rootKey)).status).toBe(200);
  });

  it('a narrow key cannot revoke a broader one, naming what it lacks', async () => {
    const broader = await workspace.rootKeyWith(['api.*.create_api', 'api.*.read_api', 'api.*.delete_api']);
    const narrow = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api']);
    const reply = await revoke(broader.rootKeyId, narrow.rootKey);
    expectInternalMissingPermissions(reply, 'api.*.create_api', 'api.*.delete_api');
    expect((await api.post('apis.createApi', { name: 'still' }, broader.rootKey)).status).toBe(200);
  });

  it('a dashboard session cannot revoke a key broader than its root key', async () => {
    const broader = await workspace.rootKeyWith(['api.*.create_api']);
    const narrow = await workspace.rootKeyWith(['workspace.*.manage_root_keys']);
    const session = await signIn(api, narrow.rootKey);
    const reply = await callInternal(api, 'rootKeys.revokeRootKey', { rootKeyId: broader.rootKeyId }, { session });
    expectInternalMissingPermissions(reply, 'api.*.create_api');
    expect((await api.post('apis.createApi', { name: 'still' }, broader.rootKey)).status).toBe(200);
  });
});

describe('404', () => {
  it('for an unknown root key id', async () => {
    const reply = await revoke('rk_00000000000000000000000000000000');
    expect(reply.status).toBe(404);
    expect(reply.error?.data.type).toBe('service/data/root_key_not_found');
  });
});

describe('cross-workspace isolation', () => {
  it("cannot revoke another workspace's root key", async () => {
    const other = await api.workspace();
    const theirs = await other.rootKeyWith(['api.*.create_api']);
    expect((await revoke(theirs.rootKeyId)).status).toBe(404);
    expect((await api.post('apis.createApi', { name: 'theirs' }, theirs.rootKey)).status).toBe(200);
  });
});
