import { beforeAll, describe, expect, it } from 'vitest';
import { createRolesWith, useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, createTestKey, useApi } from '../harness.ts';
import { callInternal, callProcedure } from '../internal.ts';

// Internal: the dashboard's key page needs a key's own grants, which getKey mixes with its roles', and
// whether it can be revealed.
const api = useApi();
const owner = useWorkspaceWithApi(api, { vault: true, settings: { encryption: { enabled: true } } });

beforeAll(async () => {
  await createRolesWith(api, owner.workspace.workspaceId, { reader: ['docs.read'] });
});

const access = (keyId: string, rootKey = owner.workspace.rootKey) =>
  callProcedure(api, 'keys.getKeyAccess', { keyId }, { rootKey });

describe('200', () => {
  it('tells direct permissions apart from those through roles, even when a slug is held both ways', async () => {
    const { keyId } = await owner.newKey({ roles: ['reader'], permissions: ['docs.read', 'docs.write'] });
    const reply = await access(keyId);
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({
      roles: ['reader'],
      directPermissions: ['docs.read', 'docs.write'],
      recoverable: false,
    });
    const mixed = await api.call('keys.getKey', { keyId }, owner.workspace.rootKey);
    expect([...(mixed.body.data.permissions ?? [])].sort()).toEqual(['docs.read', 'docs.write']);
  });

  it('answers empty lists for a key without grants', async () => {
    const { keyId } = await owner.newKey();
    expect((await access(keyId)).data).toEqual({ roles: [], directPermissions: [], recoverable: false });
  });

  it('says whether the key is recoverable, so the dashboard offers to reveal only those', async () => {
    const { keyId } = await owner.newKey({ recoverable: true });
    expect((await access(keyId)).data.recoverable).toBe(true);
  });
});

describe('400', () => {
  it('without a keyId', async () => {
    expect((await callInternal(api, 'keys.getKeyAccess', {}, { rootKey: owner.workspace.rootKey })).status).toBe(400);
  });
});

describe('403', () => {
  it('without read_key on the key API', async () => {
    const { keyId } = await owner.newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_api']);
    expect((await access(keyId, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for an unknown or deleted key', async () => {
    const { keyId } = await owner.newKey();
    await api.post('keys.deleteKey', { keyId }, owner.workspace.rootKey);
    expect((await access(keyId)).status).toBe(404);
    expect((await access('key_00000000000000000000000000000000')).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's key does not exist", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const { keyId } = await createTestKey(api, other.rootKey, { apiId: otherApi, permissions: ['secret.read'] });
    const reply = await access(keyId);
    expect(reply.status).toBe(404);
    expect(JSON.stringify(reply)).not.toContain('secret.read');
  });
});
