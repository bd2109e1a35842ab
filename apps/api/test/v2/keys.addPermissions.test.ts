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
const addPermissions = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Permission[]>('keys.addPermissions', body, rootKey);
const verify = (key: string, permissions: string) => verifyCode(api, workspace.rootKey, key, permissions);
const updateKey = ['api.*.update_key'];
const addToKey = 'rbac.*.add_permission_to_key';

describe('200', () => {
  it("adds permissions and answers the key's direct permissions", async () => {
    const { keyId } = await newKey({ permissions: ['docs.read'] });
    const reply = await addPermissions({ keyId, permissions: ['docs.write', 'docs.delete'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      { id: expect.stringMatching(/^perm_/), name: 'docs.delete', slug: 'docs.delete' },
      { id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' },
      { id: expect.stringMatching(/^perm_/), name: 'docs.write', slug: 'docs.write' },
    ]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['docs.delete', 'docs.read', 'docs.write']);
  });

  it('takes a slug of 128 characters, as permissions.createPermission does', async () => {
    const { keyId } = await newKey();
    const slug = 'a'.repeat(128);
    expect((await addPermissions({ keyId, permissions: [slug] })).status).toBe(200);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([slug]);
  });

  it('is idempotent: adding what the key has changes nothing', async () => {
    const { keyId } = await newKey({ permissions: ['idem.read'] });
    const first = await addPermissions({ keyId, permissions: ['idem.read', 'idem.read'] });
    const second = await addPermissions({ keyId, permissions: ['idem.read'] });
    expect(first.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(first.body.data).toHaveLength(1);
  });

  it('reuses existing permissions and creates missing ones, once', async () => {
    await newKey({ permissions: ['reuse.existing'] });
    const before = await countRows(em(), 'permissions');
    const { keyId } = await newKey();
    await addPermissions({ keyId, permissions: ['reuse.existing', 'reuse.new'] });
    expect(await countRows(em(), 'permissions')).toBe(before + 1);
  });

  it("includes a permission's description, and leaves out role-derived permissions", async () => {
    const roleId = await createRole(em(), workspace.workspaceId, 'add-perm-role');
    await grantRolePermission(em(), workspace.workspaceId, roleId, 'via.role');
    const { keyId } = await newKey({ roles: ['add-perm-role'] });
    await newKey({ permissions: ['described.one'] });
    await rows(
      em(),
      sql`update permissions set description = 'Read it' where workspace_id = ${workspace.workspaceId} and slug = 'described.one'`,
    );
    const reply = await addPermissions({ keyId, permissions: ['described.one'] });
    expect(reply.body.data).toEqual([
      { id: expect.any(String), name: 'described.one', slug: 'described.one', description: 'Read it' },
    ]);
  });

  it('with exactly update_key and add_permission_to_key when every slug exists', async () => {
    await newKey({ permissions: ['exists.already'] });
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_key`, addToKey]);
    expect((await addPermissions({ keyId, permissions: ['exists.already'] }, rootKey)).status).toBe(200);
  });

  it('verification sees the new permission at once (the cache is warm)', async () => {
    const { keyId, key } = await newKey();
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await verify(key, 'live.check')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verify(key, 'live.check')).toBe('INSUFFICIENT_PERMISSIONS');
    await addPermissions({ keyId, permissions: ['live.check'] });
    expect(await verify(key, 'live.check')).toBe('VALID');
  });

  it('accepts 1000 slugs', async () => {
    const { keyId } = await newKey();
    const permissions = Array.from({ length: 1000 }, (_, i) => `bulk.add.${i}`);
    const reply = await addPermissions({ keyId, permissions });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toHaveLength(1000);
  });
});

describe('400', () => {
  const expectInvalid = async (body: Record<string, unknown>, location: string) => {
    const reply = await addPermissions(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  };

  it.each([
    [{ permissions: ['a'] }, 'body.keyId'],
    [{ keyId: 'ab', permissions: ['a'] }, 'body.keyId'],
    [{ keyId: 'key_x' }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: [] }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: 'a' }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: [''] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['a'.repeat(129)] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['has space'] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: [{ slug: 'a' }] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['a'], extra: true }, 'body.extra'],
  ])('rejects %j', async (body, location) => {
    await expectInvalid(body, location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.addPermissions', { keyId, permissions: ['a'] })).status).toBe(401);
    expect((await addPermissions({ keyId, permissions: ['a'] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it('without update_key, naming it', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([addToKey, 'rbac.*.create_permission']);
    const reply = await addPermissions({ keyId, permissions: ['a.b'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.update_key'.`);
  });

  it('without rbac.*.add_permission_to_key, naming it', async () => {
    await newKey({ permissions: ['present.slug'] });
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(updateKey);
    const reply = await addPermissions({ keyId, permissions: ['present.slug'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: '${addToKey}'.`);
  });

  it('names every missing permission at once', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    const reply = await addPermissions({ keyId, permissions: ['x.y'] }, rootKey);
    expect(reply.body.error.detail).toBe(`Missing permissions: 'api.${apiId}.update_key', '${addToKey}'.`);
  });

  it('without rbac.*.create_permission when a slug is new, creating and attaching nothing', async () => {
    await newKey({ permissions: ['known.slug'] });
    const { keyId } = await newKey();
    const before = await countRows(em(), 'permissions');
    const { rootKey } = await workspace.rootKeyWith([...updateKey, addToKey]);
    const reply = await addPermissions({ keyId, permissions: ['known.slug', 'unknown.slug'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe("Missing permission: 'rbac.*.create_permission'.");
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
  });

  it('with rbac.*.create_permission a new slug is created', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([...updateKey, addToKey, 'rbac.*.create_permission']);
    expect((await addPermissions({ keyId, permissions: ['created.with.grant'] }, rootKey)).status).toBe(200);
  });
});

describe('404', () => {
  it('for a key that does not exist, before checking permissions', async () => {
    const { rootKey } = await workspace.rootKeyWith([]);
    const reply = await addPermissions({ keyId: 'key_missing', permissions: ['a'] }, rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });

  it('for a deleted key', async () => {
    const { keyId } = await newKey();
    await rows(em(), sql`update keys set deleted_at = now() where id = ${keyId}`);
    expect((await addPermissions({ keyId, permissions: ['a'] })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await newKey();
    const intruder = await api.workspace();
    expect((await addPermissions({ keyId, permissions: ['stolen'] }, intruder.rootKey)).status).toBe(404);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
  });

  it("creates its own permission rather than using another workspace's slug", async () => {
    await newKey({ permissions: ['cross.slug'] });
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    const { rootKey } = await other.rootKeyWith([...updateKey, addToKey]);
    // The slug exists only in the first workspace: for the other one it is new.
    const denied = await addPermissions({ keyId: theirs.keyId, permissions: ['cross.slug'] }, rootKey);
    expect(denied.status).toBe(403);
    const reply = await addPermissions({ keyId: theirs.keyId, permissions: ['cross.slug'] }, other.rootKey);
    const [permission] = await rows(
      em(),
      sql<{
        workspaceId: string;
      }>`select workspace_id as "workspaceId" from permissions where id = ${reply.body.data[0]?.id ?? ''}`,
    );
    expect(permission?.workspaceId).toBe(other.workspaceId);
  });
});
