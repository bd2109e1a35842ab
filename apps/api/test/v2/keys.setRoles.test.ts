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
  const writer = await createRole(em(), workspace.workspaceId, 'writer');
  await grantRolePermission(em(), workspace.workspaceId, writer, 'docs.write');
  await createRole(em(), workspace.workspaceId, 'admin');
});

type Role = { id: string; name: string; description?: string; permissions: { slug: string }[] };
type Created = { keyId: string; key: string };
const newKey = (body: Record<string, unknown> = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const setRoles = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Role[]>('keys.setRoles', body, rootKey);
const verify = (key: string, permissions: string) => verifyCode(api, workspace.rootKey, key, permissions);
const roleLinkGrants = ['rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'];

describe('200', () => {
  it('makes the roles exactly the requested set', async () => {
    const { keyId } = await newKey({ roles: ['reader', 'writer'] });
    const reply = await setRoles({ keyId, roles: ['writer', 'admin'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((role) => [role.name, role.permissions.map((p) => p.slug)])).toEqual([
      ['admin', []],
      ['writer', ['docs.write']],
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['admin', 'writer']);
  });

  it('takes a role name of 128 characters, as permissions.createRole does', async () => {
    const name = 's'.repeat(128);
    expect((await api.post('permissions.createRole', { name }, workspace.rootKey)).status).toBe(200);
    const { keyId } = await newKey();
    expect((await setRoles({ keyId, roles: [name] })).status).toBe(200);
    expect(await keyRoleNames(em(), keyId)).toEqual([name]);
  });

  it('clears them with []', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const reply = await setRoles({ keyId, roles: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });

  it('is idempotent', async () => {
    const { keyId } = await newKey();
    const first = await setRoles({ keyId, roles: ['reader', 'admin', 'reader'] });
    const second = await setRoles({ keyId, roles: ['admin', 'reader'] });
    expect(first.body.data.map((role) => role.name)).toEqual(['admin', 'reader']);
    expect(second.body.data).toEqual(first.body.data);
  });

  it('verification follows the new roles at once (the cache is warm)', async () => {
    const { keyId, key } = await newKey({ roles: ['reader'] });
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await verify(key, 'docs.read')).toBe('VALID');
    expect(await verify(key, 'docs.read')).toBe('VALID');
    await setRoles({ keyId, roles: ['writer'] });
    expect(await verify(key, 'docs.read')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verify(key, 'docs.write')).toBe('VALID');
  });

  it('with exactly update_key, rbac.*.add_role_to_key and rbac.*.remove_role_from_key', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, ...roleLinkGrants]);
    expect((await setRoles({ keyId, roles: ['admin'] }, rootKey)).status).toBe(200);
    expect(await keyRoleNames(em(), keyId)).toEqual(['admin']);
  });
});

describe('400', () => {
  it.each([
    [{ roles: [] }, 'body.keyId'],
    [{ keyId: 'key_x' }, 'body.roles'],
    [{ keyId: 'key_x', roles: null }, 'body.roles'],
    [{ keyId: 'key_x', roles: Array.from({ length: 101 }, (_, i) => `r${i}`) }, 'body.roles'],
    [{ keyId: 'key_x', roles: ['ok', ''] }, 'body.roles[1]'],
    [{ keyId: 'key_x', roles: ['ok', 's'.repeat(129)] }, 'body.roles[1]'],
  ])('rejects %j', async (body, location) => {
    const reply = await setRoles(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.setRoles', { keyId, roles: [] })).status).toBe(401);
    expect((await setRoles({ keyId, roles: [] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without update_key, naming it and changing nothing', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith([...roleLinkGrants, 'api.*.create_key']);
    const reply = await setRoles({ keyId, roles: [] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.update_key'.`);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it.each([
    ['rbac.*.add_role_to_key', ['api.*.update_key', 'rbac.*.remove_role_from_key']],
    ['rbac.*.remove_role_from_key', ['api.*.update_key', 'rbac.*.add_role_to_key']],
  ])('without %s, naming it and changing nothing', async (missing, grants) => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await workspace.rootKeyWith(grants);
    const reply = await setRoles({ keyId, roles: ['writer'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: '${missing}'.`);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('with neither update_key nor the rbac actions, naming everything missing in one answer', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    const reply = await setRoles({ keyId, roles: ['admin'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(
      `Missing permissions: 'api.${apiId}.update_key', 'rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'.`,
    );
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    const reply = await setRoles({ keyId: 'key_missing', roles: [] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });

  it('for a key that does not exist, before any missing permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    expect((await setRoles({ keyId: 'key_missing', roles: [] }, rootKey)).status).toBe(404);
  });

  it('for a role that does not exist, changing nothing', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const reply = await setRoles({ keyId, roles: ['writer', 'ghost'] });
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
    expect((await setRoles({ keyId, roles: [] }, intruder.rootKey)).status).toBe(404);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it("cannot give its key another workspace's roles", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    const reply = await setRoles({ keyId: theirs.keyId, roles: ['admin'] }, other.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'admin' was not found.");
  });
});
