import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRole, grantRolePermission, keyRoleNames } from '../dbInspect.ts';
import { createTestApi, createTestKey, ERRORS_BASE_URL, type TestWorkspace, useApi } from '../harness.ts';

const api = useApi();
let workspace: TestWorkspace;
let apiId: string;
let readerId: string;
const em = () => api.orm.em.fork();

beforeAll(async () => {
  workspace = await api.workspace();
  apiId = await createTestApi(api, workspace.rootKey);
  readerId = await createRole(em(), workspace.workspaceId, 'reader');
  await grantRolePermission(em(), workspace.workspaceId, readerId, 'docs.read');
  await grantRolePermission(em(), workspace.workspaceId, readerId, 'docs.list');
  await createRole(em(), workspace.workspaceId, 'writer');
  await rows(em(), sql`update roles set description = 'Reads documents' where id = ${readerId}`);
});

type Role = { id: string; name: string; description?: string; permissions: { slug: string }[] };
type Created = { keyId: string; key: string };
const newKey = (body: Record<string, unknown> = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const addRoles = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Role[]>('keys.addRoles', body, rootKey);
const verify = async (key: string, permissions: string) => {
  const reply = await api.post<{ code: string; roles?: string[] }>(
    'keys.verifyKey',
    { key, permissions },
    workspace.rootKey,
  );
  expect(reply.status).toBe(200);
  return reply.body.data;
};

describe('200', () => {
  it("adds roles and answers the key's roles with their permissions", async () => {
    const { keyId } = await newKey({ roles: ['writer'] });
    const reply = await addRoles({ keyId, roles: ['reader'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      {
        id: readerId,
        name: 'reader',
        description: 'Reads documents',
        permissions: [
          { id: expect.stringMatching(/^perm_/), name: 'docs.list', slug: 'docs.list' },
          { id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' },
        ],
      },
      { id: expect.stringMatching(/^role_/), name: 'writer', permissions: [] },
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader', 'writer']);
  });

  it('takes a role name of 128 characters, as permissions.createRole does', async () => {
    const name = 'a'.repeat(128);
    expect((await api.post('permissions.createRole', { name }, workspace.rootKey)).status).toBe(200);
    const { keyId } = await newKey();
    expect((await addRoles({ keyId, roles: [name] })).status).toBe(200);
    expect(await keyRoleNames(em(), keyId)).toEqual([name]);
  });

  it('is idempotent', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const first = await addRoles({ keyId, roles: ['reader', 'reader'] });
    const second = await addRoles({ keyId, roles: ['reader'] });
    expect(first.status).toBe(200);
    expect(first.body.data.map((role) => role.name)).toEqual(['reader']);
    expect(second.body.data).toEqual(first.body.data);
  });

  it("grants the role's permissions in verification at once (the cache is warm)", async () => {
    const { keyId, key } = await newKey();
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect((await verify(key, 'docs.read')).code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await verify(key, 'docs.read')).code).toBe('INSUFFICIENT_PERMISSIONS');
    await addRoles({ keyId, roles: ['reader'] });
    const after = await verify(key, 'docs.read and docs.list');
    expect(after.code).toBe('VALID');
    expect(after.roles).toEqual(['reader']);
  });

  it('with exactly update_key and rbac.*.add_role_to_key', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, 'rbac.*.add_role_to_key']);
    expect((await addRoles({ keyId, roles: ['writer'] }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    [{ roles: ['reader'] }, 'body.keyId'],
    [{ keyId: 'key_x' }, 'body.roles'],
    [{ keyId: 'key_x', roles: [] }, 'body.roles'],
    [{ keyId: 'key_x', roles: Array.from({ length: 101 }, (_, i) => `r${i}`) }, 'body.roles'],
    [{ keyId: 'key_x', roles: [''] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: ['r'.repeat(129)] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: ['reader'], extra: 1 }, 'body.extra'],
  ])('rejects %j', async (body, location) => {
    const reply = await addRoles(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.addRoles', { keyId, roles: ['reader'] })).status).toBe(401);
    expect((await addRoles({ keyId, roles: ['reader'] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without update_key, naming it', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.add_role_to_key']);
    const reply = await addRoles({ keyId, roles: ['reader'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.update_key'.`);
  });

  it('without rbac.*.add_role_to_key, naming it and adding nothing', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['api.*.update_key']);
    const reply = await addRoles({ keyId, roles: ['reader'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe("Missing permission: 'rbac.*.add_role_to_key'.");
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    const reply = await addRoles({ keyId: 'key_missing', roles: ['reader'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });

  it('for a role that does not exist, adding none of the others', async () => {
    const { keyId } = await newKey();
    const reply = await addRoles({ keyId, roles: ['reader', 'ghost'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/role_not_found`);
    expect(reply.body.error.detail).toBe("Role 'ghost' was not found.");
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await newKey();
    const intruder = await api.workspace();
    expect((await addRoles({ keyId, roles: ['reader'] }, intruder.rootKey)).status).toBe(404);
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });

  it("cannot give its key another workspace's role", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    const reply = await addRoles({ keyId: theirs.keyId, roles: ['reader'] }, other.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'reader' was not found.");
  });
});
