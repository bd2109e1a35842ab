import { describe, expect, it } from 'vitest';
import { keyPermissionSlugs } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, useApi } from '../harness.ts';
import { createKeyWith, createTestRole, itAnswersNotFoundFor, verifyCode, verifyWarm } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);
const twin = shared.useItemTwin(api, 'permissions.deletePermission', () => owner.workspace);

const createRole = (name: string, permissions: string[]) =>
  createTestRole(api, owner.workspace.rootKey, { name, permissions });

describe('200', () => {
  it('by id: a hard delete answering {}', async () => {
    const id = await twin.createHere('gone.by.id');
    const reply = await twin.send(id);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await twin.exists(id)).toBe(false);
    expect((await api.post('permissions.getPermission', { permission: id }, owner.workspace.rootKey)).status).toBe(404);
  });

  shared.itDeletesByHandleOrId(twin);

  it('takes it off every role and key', async () => {
    const id = await twin.createHere('cascade.me');
    const roleId = await createRole('cascade-role', ['cascade.me', 'stays']);
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {
      permissions: ['cascade.me', 'stays'],
    });
    await twin.send(id);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['stays']);
    const role = await api.call('permissions.getRole', { role: roleId }, owner.workspace.rootKey);
    expect(role.body.data.permissions.map((p) => p.slug)).toEqual(['stays']);
  });

  it('a key holding it directly stops verifying for it at once (the cache is warm)', async () => {
    const id = await twin.createHere('direct.x');
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { permissions: ['direct.x'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'direct.x')).toBe('VALID');
    await twin.send(id);
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'direct.x')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('a key holding it through a role stops verifying for it at once (the cache is warm)', async () => {
    await createRole('through-role', ['role.x', 'role.y']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['through-role'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'role.x and role.y')).toBe('VALID');
    await twin.send('role.x');
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'role.x')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'role.y')).toBe('VALID');
  });

  it('racing writes that attach it to roles and keys: never a 500', async () => {
    const roleId = await createRole('racer', []);
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {});
    for (let round = 0; round < 15; round++) {
      const slug = `race.${round}`;
      const id = await twin.createHere(slug);
      const replies = await Promise.all([
        twin.send(slug),
        api.post('permissions.setRolePermissions', { roleId, permissions: [slug] }, owner.workspace.rootKey),
        api.post('keys.addPermissions', { keyId, permissions: [slug] }, owner.workspace.rootKey),
        api.post('permissions.createRole', { name: `racer-${round}`, permissions: [slug] }, owner.workspace.rootKey),
        api.post('keys.createKey', { apiId: owner.apiId, permissions: [slug] }, owner.workspace.rootKey),
      ]);
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
      // Whatever came first, the delete removed the permission with every link to it (a write
      // that came after it may have created the slug anew).
      expect(await twin.exists(id)).toBe(false);
    }
  });

  shared.itAnswersWithExactlyTheGrant(twin, 'delete');
});

describe('400', () => {
  shared.itRejectsInvalidNames(twin, 'x');
});

describe('403', () => {
  shared.itNeedsTheGrant(twin, 'delete', {
    others: ['rbac.*.read_permission', 'rbac.*.create_permission'],
    beforeLookup: ['rbac.*.read_permission'],
  });
});

describe('404', () => {
  itAnswersNotFoundFor('permission', ['perm_doesnotexist', 'no.such.slug'], twin.send);

  shared.itAnswersTheSecondDeleteNotFound(twin);
});

describe('cross-workspace isolation', () => {
  shared.itKeepsWorkspacesApart(twin);

  it('deleting a slug here leaves the same slug of another workspace, and its keys, alone', async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = await createKeyWith(api, other.rootKey, otherApi, { permissions: ['same.slug'] });
    await twin.createHere('same.slug');
    expect((await twin.send('same.slug')).status).toBe(200);
    expect(await verifyCode(api, other.rootKey, theirs.key, 'same.slug')).toBe('VALID');
  });
});
