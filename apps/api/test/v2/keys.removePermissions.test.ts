import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { countRows, createRole, grantRolePermission, keyPermissionSlugs } from '../dbInspect.ts';
import { createTestApi, createTestKey, ERRORS_BASE_URL, type TestWorkspace, useApi } from '../harness.ts';
import { verifyCode } from '../rbac.ts';

const api = useApi();
let workspace: TestWorkspace;
let apiId: string;
const em = () => api.orm.em.fork();

beforeAll(async () => {
  workspace = await api.workspace();
  apiId = await createTestApi(api, workspace.rootKey);
});

type Permission = { id: string; name: string; slug: string; description?: string };
type Created = { keyId: string; key: string };
const newKey = (body: Record<string, unknown> = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const removePermissions = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Permission[]>('keys.removePermissions', body, rootKey);
const verify = (key: string, permissions: string) => verifyCode(api, workspace.rootKey, key, permissions);
const removeFromKey = 'rbac.*.remove_permission_from_key';

describe('200', () => {
  it("removes permissions and answers the key's remaining direct permissions", async () => {
    const { keyId } = await newKey({ permissions: ['docs.read', 'docs.write', 'docs.delete'] });
    const reply = await removePermissions({ keyId, permissions: ['docs.write', 'docs.delete'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([{ id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' }]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['docs.read']);
  });

  it('takes a slug of 128 characters, as permissions.createPermission does', async () => {
    const { keyId } = await newKey();
    const slug = 'r'.repeat(128);
    await api.post('keys.addPermissions', { keyId, permissions: [slug, 'docs.read'] }, workspace.rootKey);
    expect((await removePermissions({ keyId, permissions: [slug] })).status).toBe(200);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['docs.read']);
  });

  it('is a no-op for a permission that exists but is not attached, and when repeated', async () => {
    await newKey({ permissions: ['elsewhere.only'] });
    const { keyId } = await newKey({ permissions: ['mine.only'] });
    const first = await removePermissions({ keyId, permissions: ['elsewhere.only'] });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p) => p.slug)).toEqual(['mine.only']);
    expect((await removePermissions({ keyId, permissions: ['mine.only'] })).body.data).toEqual([]);
    expect((await removePermissions({ keyId, permissions: ['mine.only'] })).body.data).toEqual([]);
  });

  it('detaches without deleting the permission, and keeps role-derived permissions', async () => {
    const roleId = await createRole(em(), workspace.workspaceId, 'remove-role');
    await grantRolePermission(em(), workspace.workspaceId, roleId, 'shared.perm');
    const { keyId, key } = await newKey({ roles: ['remove-role'], permissions: ['shared.perm'] });
    const before = await countRows(em(), 'permissions');
    await removePermissions({ keyId, permissions: ['shared.perm'] });
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
    expect(await verify(key, 'shared.perm')).toBe('VALID');
  });

  it('verification sees the removal at once (the cache is warm)', async () => {
    const { keyId, key } = await newKey({ permissions: ['live.remove'] });
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await verify(key, 'live.remove')).toBe('VALID');
    expect(await verify(key, 'live.remove')).toBe('VALID');
    await removePermissions({ keyId, permissions: ['live.remove'] });
    expect(await verify(key, 'live.remove')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('needs no create_permission', async () => {
    const { keyId } = await newKey({ permissions: ['scoped.remove'] });
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, removeFromKey]);
    expect((await removePermissions({ keyId, permissions: ['scoped.remove'] }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    [{ permissions: ['a'] }, 'body.keyId'],
    [{ keyId: 'key_x' }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: [] }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: ['p'.repeat(129)] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['a'], permanent: true }, 'body.permanent'],
  ])('rejects %j', async (body, location) => {
    const reply = await removePermissions(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.removePermissions', { keyId, permissions: ['a'] })).status).toBe(401);
    expect((await removePermissions({ keyId, permissions: ['a'] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without update_key, naming it', async () => {
    const { keyId } = await newKey({ permissions: ['kept.a'] });
    const { rootKey } = await workspace.rootKeyWith([removeFromKey]);
    const reply = await removePermissions({ keyId, permissions: ['kept.a'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.update_key'.`);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['kept.a']);
  });

  it('without rbac.*.remove_permission_from_key, naming it', async () => {
    const { keyId } = await newKey({ permissions: ['kept.b'] });
    const { rootKey } = await workspace.rootKeyWith(['api.*.update_key', 'rbac.*.add_permission_to_key']);
    const reply = await removePermissions({ keyId, permissions: ['kept.b'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: '${removeFromKey}'.`);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['kept.b']);
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    const reply = await removePermissions({ keyId: 'key_missing', permissions: ['a'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });

  it('for a slug the workspace does not have, removing nothing', async () => {
    const { keyId } = await newKey({ permissions: ['present.one'] });
    const reply = await removePermissions({ keyId, permissions: ['present.one', 'absent.one'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/permission_not_found`);
    expect(reply.body.error.detail).toBe("Permission 'absent.one' was not found.");
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['present.one']);
  });

  it('treats a perm_ id as a slug', async () => {
    const { keyId } = await newKey({ permissions: ['by.id'] });
    const [permission] = await rows(
      em(),
      sql<{ id: string }>`select id from permissions where workspace_id = ${workspace.workspaceId} and slug = 'by.id'`,
    );
    const reply = await removePermissions({ keyId, permissions: [permission?.id ?? ''] });
    expect(reply.status).toBe(404);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['by.id']);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await newKey({ permissions: ['iso.keep'] });
    const intruder = await api.workspace();
    expect((await removePermissions({ keyId, permissions: ['iso.keep'] }, intruder.rootKey)).status).toBe(404);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['iso.keep']);
  });

  it("does not know another workspace's slugs", async () => {
    await newKey({ permissions: ['iso.foreign'] });
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    const reply = await removePermissions({ keyId: theirs.keyId, permissions: ['iso.foreign'] }, other.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Permission 'iso.foreign' was not found.");
  });
});
