import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { countRows, keyPermissionSlugs } from '../dbInspect.ts';
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
const setPermissions = (body: Record<string, unknown>, rootKey = workspace.rootKey) =>
  api.post<Permission[]>('keys.setPermissions', body, rootKey);
const verify = (key: string, permissions: string) => verifyCode(api, workspace.rootKey, key, permissions);
const linkGrants = ['api.*.update_key', 'rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key'];

describe('200', () => {
  it('makes the direct permissions exactly the requested set, keeping the ids of those that stay', async () => {
    const { keyId } = await newKey({ permissions: ['set.a', 'set.b'] });
    const [before] = await rows(
      em(),
      sql<{ id: string }>`select id from permissions where workspace_id = ${workspace.workspaceId} and slug = 'set.b'`,
    );
    const reply = await setPermissions({ keyId, permissions: ['set.b', 'set.c', 'set.c'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      { id: before?.id, name: 'set.b', slug: 'set.b' },
      { id: expect.stringMatching(/^perm_/), name: 'set.c', slug: 'set.c' },
    ]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['set.b', 'set.c']);
  });

  it('clears them with [], deleting no permission', async () => {
    const { keyId } = await newKey({ permissions: ['clear.a', 'clear.b'] });
    const before = await countRows(em(), 'permissions');
    const reply = await setPermissions({ keyId, permissions: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
    expect(await countRows(em(), 'permissions')).toBe(before);
  });

  it('takes a slug of 128 characters, as permissions.createPermission does', async () => {
    const { keyId } = await newKey();
    const slug = 's'.repeat(128);
    expect((await setPermissions({ keyId, permissions: [slug] })).status).toBe(200);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([slug]);
  });

  it('is idempotent', async () => {
    const { keyId } = await newKey();
    const first = await setPermissions({ keyId, permissions: ['idem.x', 'idem.y'] });
    const second = await setPermissions({ keyId, permissions: ['idem.y', 'idem.x'] });
    expect(second.body.data).toEqual(first.body.data);
  });

  it('verification sees the new set at once (the cache is warm)', async () => {
    const { keyId, key } = await newKey({ permissions: ['live.old'] });
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await verify(key, 'live.old')).toBe('VALID');
    expect(await verify(key, 'live.old')).toBe('VALID');
    await setPermissions({ keyId, permissions: ['live.new'] });
    expect(await verify(key, 'live.old')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verify(key, 'live.new')).toBe('VALID');
  });

  it('with update_key and both link grants when every slug exists', async () => {
    await newKey({ permissions: ['existing.set'] });
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(linkGrants);
    expect((await setPermissions({ keyId, permissions: ['existing.set'] }, rootKey)).status).toBe(200);
    expect((await setPermissions({ keyId, permissions: [] }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    [{ permissions: [] }, 'body.keyId'],
    [{ keyId: 'key_x' }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: null }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: ['ok', 'not ok'] }, 'body.permissions[1]'],
    [{ keyId: 'key_x', permissions: ['ok', 's'.repeat(129)] }, 'body.permissions[1]'],
    [{ keyId: 'key_x', permissions: [], roles: [] }, 'body.roles'],
  ])('rejects %j', async (body, location) => {
    const reply = await setPermissions(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/application/invalid_input`);
    expect(reply.body.error.errors?.map((e) => e.location)).toContain(location);
  });
});

describe('401', () => {
  it('without a root key, or with an unknown one', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.setPermissions', { keyId, permissions: [] })).status).toBe(401);
    expect((await setPermissions({ keyId, permissions: [] }, 'kproot_unknown')).status).toBe(401);
  });
});

describe('403', () => {
  it.each([
    ['api.API_ID.update_key', ['rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key']],
    ['rbac.*.add_permission_to_key', ['api.*.update_key', 'rbac.*.remove_permission_from_key']],
    ['rbac.*.remove_permission_from_key', ['api.*.update_key', 'rbac.*.add_permission_to_key']],
  ])('without %s, naming it and changing nothing', async (missing, grants) => {
    const { keyId } = await newKey({ permissions: ['untouched'] });
    const { rootKey } = await workspace.rootKeyWith(grants);
    const reply = await setPermissions({ keyId, permissions: [] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(`Missing permission: '${missing.replace('API_ID', apiId)}'.`);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['untouched']);
  });

  it('without rbac.*.create_permission when a slug is new, creating and changing nothing', async () => {
    const { keyId } = await newKey({ permissions: ['stays'] });
    const before = await countRows(em(), 'permissions');
    const { rootKey } = await workspace.rootKeyWith(linkGrants);
    const reply = await setPermissions({ keyId, permissions: ['never.created'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe("Missing permission: 'rbac.*.create_permission'.");
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['stays']);
  });

  it('with rbac.*.create_permission a new slug is created', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([...linkGrants, 'rbac.*.create_permission']);
    const reply = await setPermissions({ keyId, permissions: ['created.by.set'] }, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((p) => p.slug)).toEqual(['created.by.set']);
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    const reply = await setPermissions({ keyId: 'key_missing', permissions: [] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/key_not_found`);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await newKey({ permissions: ['iso.set'] });
    const intruder = await api.workspace();
    expect((await setPermissions({ keyId, permissions: [] }, intruder.rootKey)).status).toBe(404);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['iso.set']);
  });

  it('gets its own permission for a slug another workspace has', async () => {
    await newKey({ permissions: ['iso.shared'] });
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.post<Created>('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    const reply = await setPermissions({ keyId: theirs.keyId, permissions: ['iso.shared'] }, other.rootKey);
    const [permission] = await rows(
      em(),
      sql<{
        workspaceId: string;
      }>`select workspace_id as "workspaceId" from permissions where id = ${reply.body.data[0]?.id ?? ''}`,
    );
    expect(permission?.workspaceId).toBe(other.workspaceId);
  });
});
