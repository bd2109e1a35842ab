import { beforeAll, describe, expect, it } from 'vitest';
import { createRole, grantRolePermission, keyRoleNames } from '../dbInspect.ts';
import { createTestApi, createTestKey, ERRORS_BASE_URL, type TestWorkspace, useApi } from '../harness.ts';
import { verifyCode } from '../rbac.ts';

const api = useApi();
let workspace: TestWorkspace;
let apiId: string;
const em = () => api.orm.em.fork();

beforeAll(async () => {
  workspace = await api.workspace();
  apiId = await createTestApi(api, workspace.rootKey);
  const reader = await createRole(em(), workspace.workspaceId, 'reader');
  await grantRolePermission(em(), workspace.workspaceId, reader, 'docs.read');
  await createRole(em(), workspace.workspaceId, 'writer');
  await createRole(em(), workspace.workspaceId, 'unused');
});

type Role = { id: string; name: string; description?: string; permissions: { slug: string }[] };
type Created = { keyId: string; key: string };
const newKey = (body: Record<string, unknown> = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const removeRoles = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Role[]>('keys.removeRoles', body, rootKey);
const verify = (key: string, permissions: string) => verifyCode(api, workspace.rootKey, key, permissions);

describe('200', () => {
  it('takes a role name of 128 characters, as permissions.createRole does', async () => {
    const name = 'r'.repeat(128);
    expect((await api.post('permissions.createRole', { name }, workspace.rootKey)).status).toBe(200);
    const { keyId } = await newKey({ roles: ['reader'] });
    await api.post('keys.addRoles', { keyId, roles: [name] }, workspace.rootKey);
    expect((await removeRoles({ keyId, roles: [name] })).status).toBe(200);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it("removes roles and answers the key's remaining roles", async () => {
    const { keyId } = await newKey({ roles: ['reader', 'writer'] });
    const reply = await removeRoles({ keyId, roles: ['writer'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      {
        id: expect.stringMatching(/^role_/),
        name: 'reader',
        permissions: [{ id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' }],
      },
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('is a no-op for a role the key does not have, and when repeated', async () => {
    const { keyId } = await newKey({ roles: ['writer'] });
    expect((await removeRoles({ keyId, roles: ['unused'] })).body.data.map((role) => role.name)).toEqual(['writer']);
    expect((await removeRoles({ keyId, roles: ['writer'] })).body.data).toEqual([]);
    const again = await removeRoles({ keyId, roles: ['writer'] });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual([]);
  });

  it("verification loses the role's permissions at once (the cache is warm)", async () => {
    const { keyId, key } = await newKey({ roles: ['reader'] });
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await verify(key, 'docs.read')).toBe('VALID');
    expect(await verify(key, 'docs.read')).toBe('VALID');
    await removeRoles({ keyId, roles: ['reader'] });
    expect(await verify(key, 'docs.read')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('with exactly update_key and rbac.*.remove_role_from_key', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, 'rbac.*.remove_role_from_key']);
    expect((await removeRoles({ keyId, roles: ['reader'] }, rootKey)).status).toBe(200);
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });
});

describe('400', () => {
  it.each([
    [{ roles: ['reader'] }, 'body.keyId'],
    [{ keyId: 'key_x', roles: [] }, 'body.roles'],
    [{ keyId: 'key_x', roles: Array.from({ length: 101 }, (_, i) => `r${i}`) }, 'body.roles'],
    [{ keyId: 'key_x', roles: ['no spaces'] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: ['r'.repeat(129)] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: [7] }, 'body.roles[0]'],
  ])('rejects %j', async (body, location) => {
    const reply = await removeRoles(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.removeRoles', { keyId, roles: ['reader'] })).status).toBe(401);
    expect((await removeRoles({ keyId, roles: ['reader'] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without update_key, naming it and removing nothing', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.remove_role_from_key', 'api.*.read_key']);
    const reply = await removeRoles({ keyId, roles: ['reader'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.update_key'.`);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('without rbac.*.remove_role_from_key, naming it and removing nothing', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, 'rbac.*.add_role_to_key']);
    const reply = await removeRoles({ keyId, roles: ['reader'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe("Missing permission: 'rbac.*.remove_role_from_key'.");
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('naming everything missing in one answer', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    const reply = await removeRoles({ keyId, roles: ['reader'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(
      `Missing permissions: 'api.${apiId}.update_key', 'rbac.*.remove_role_from_key'.`,
    );
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    const reply = await removeRoles({ keyId: 'key_missing', roles: ['reader'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });

  it('for a key that does not exist, before any missing permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    expect((await removeRoles({ keyId: 'key_missing', roles: ['reader'] }, rootKey)).status).toBe(404);
  });

  it('for a role that does not exist, removing none of the others', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const reply = await removeRoles({ keyId, roles: ['reader', 'ghost'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/role_not_found`);
    expect(reply.body.error.detail).toBe("Role 'ghost' was not found.");
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const intruder = await api.workspace();
    expect((await removeRoles({ keyId, roles: ['reader'] }, intruder.rootKey)).status).toBe(404);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it("does not know another workspace's roles", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    expect((await removeRoles({ keyId: theirs.keyId, roles: ['reader'] }, other.rootKey)).status).toBe(404);
  });
});
