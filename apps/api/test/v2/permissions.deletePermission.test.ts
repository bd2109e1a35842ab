import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { keyPermissionSlugs } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import {
  createKeyWith,
  itAnswersNotFoundFor,
  itRefusesBeforeTheLookup,
  nameFieldCases,
  verifyCode,
  verifyWarm,
} from '../rbac.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);

const deletePermission = (body: InputOf<'permissions.deletePermission'>, rootKey = owner.workspace.rootKey) =>
  api.call('permissions.deletePermission', body, rootKey);

async function createPermission(slug: string, rootKey = owner.workspace.rootKey) {
  const reply = await api.call('permissions.createPermission', { name: slug, slug }, rootKey);
  if (reply.status !== 200) throw new Error(`createPermission: ${JSON.stringify(reply.body)}`);
  return reply.body.data.permissionId;
}

async function createRole(name: string, permissions: string[]) {
  const reply = await api.call('permissions.createRole', { name, permissions }, owner.workspace.rootKey);
  if (reply.status !== 200) throw new Error(`createRole: ${JSON.stringify(reply.body)}`);
  return reply.body.data.roleId;
}

const permissionExists = async (id: string) =>
  (await rows(api.em(), sql`select 1 from permissions where id = ${id}`)).length === 1;

describe('200', () => {
  it('by id: a hard delete answering {}', async () => {
    const id = await createPermission('gone.by.id');
    const reply = await deletePermission({ permission: id });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await permissionExists(id)).toBe(false);
    expect((await api.post('permissions.getPermission', { permission: id }, owner.workspace.rootKey)).status).toBe(404);
  });

  it('by slug', async () => {
    const id = await createPermission('gone.by.slug');
    expect((await deletePermission({ permission: 'gone.by.slug' })).status).toBe(200);
    expect(await permissionExists(id)).toBe(false);
  });

  it('by id, leaving a permission whose slug is that id alone', async () => {
    const id = await createPermission('target');
    const lookalike = await createPermission(id);
    expect((await deletePermission({ permission: id })).status).toBe(200);
    expect(await permissionExists(id)).toBe(false);
    expect(await permissionExists(lookalike)).toBe(true);
  });

  it('takes it off every role and key', async () => {
    const id = await createPermission('cascade.me');
    const roleId = await createRole('cascade-role', ['cascade.me', 'stays']);
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {
      permissions: ['cascade.me', 'stays'],
    });
    await deletePermission({ permission: id });
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['stays']);
    const role = await api.call('permissions.getRole', { role: roleId }, owner.workspace.rootKey);
    expect(role.body.data.permissions.map((p) => p.slug)).toEqual(['stays']);
  });

  it('a key holding it directly stops verifying for it at once (the cache is warm)', async () => {
    const id = await createPermission('direct.x');
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { permissions: ['direct.x'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'direct.x')).toBe('VALID');
    await deletePermission({ permission: id });
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'direct.x')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('a key holding it through a role stops verifying for it at once (the cache is warm)', async () => {
    await createRole('through-role', ['role.x', 'role.y']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['through-role'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'role.x and role.y')).toBe('VALID');
    await deletePermission({ permission: 'role.x' });
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'role.x')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'role.y')).toBe('VALID');
  });

  it('racing writes that attach it to roles and keys: never a 500', async () => {
    const roleId = await createRole('racer', []);
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {});
    for (let round = 0; round < 15; round++) {
      const slug = `race.${round}`;
      const id = await createPermission(slug);
      const replies = await Promise.all([
        deletePermission({ permission: slug }),
        api.post('permissions.setRolePermissions', { roleId, permissions: [slug] }, owner.workspace.rootKey),
        api.post('keys.addPermissions', { keyId, permissions: [slug] }, owner.workspace.rootKey),
        api.post('permissions.createRole', { name: `racer-${round}`, permissions: [slug] }, owner.workspace.rootKey),
        api.post('keys.createKey', { apiId: owner.apiId, permissions: [slug] }, owner.workspace.rootKey),
      ]);
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
      // Whatever came first, the delete removed the permission with every link to it (a write
      // that came after it may have created the slug anew).
      expect(await permissionExists(id)).toBe(false);
    }
  });

  it('with exactly rbac.*.delete_permission', async () => {
    const id = await createPermission('exact.grant');
    const { rootKey } = await owner.workspace.rootKeyWith(['rbac.*.delete_permission']);
    expect((await deletePermission({ permission: id }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.deletePermission', () => owner.workspace.rootKey, nameFieldCases('permission', 'x'));
});

describe('403', () => {
  it('without rbac.*.delete_permission, naming it and deleting nothing', async () => {
    const id = await createPermission('kept');
    const { rootKey } = await owner.workspace.rootKeyWith(['rbac.*.read_permission', 'rbac.*.create_permission']);
    const reply = await deletePermission({ permission: id }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.delete_permission');
    expect(await permissionExists(id)).toBe(true);
  });

  itRefusesBeforeTheLookup(
    'permission',
    () => owner.workspace,
    ['rbac.*.read_permission'],
    (id, rootKey) => deletePermission({ permission: id }, rootKey),
  );
});

describe('404', () => {
  itAnswersNotFoundFor('permission', ['perm_doesnotexist', 'no.such.slug'], (permission) =>
    deletePermission({ permission }),
  );

  it('the second of two deletes', async () => {
    const id = await createPermission('twice');
    expect((await deletePermission({ permission: id })).status).toBe(200);
    expect((await deletePermission({ permission: id })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot delete another workspace's permission, by id or by slug", async () => {
    const other = await api.workspace();
    const theirs = await createPermission('their.perm', other.rootKey);
    expect((await deletePermission({ permission: theirs })).status).toBe(404);
    expect((await deletePermission({ permission: 'their.perm' })).status).toBe(404);
    expect(await permissionExists(theirs)).toBe(true);
  });

  it('deleting a slug here leaves the same slug of another workspace, and its keys, alone', async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = await createKeyWith(api, other.rootKey, otherApi, { permissions: ['same.slug'] });
    await createPermission('same.slug');
    expect((await deletePermission({ permission: 'same.slug' })).status).toBe(200);
    expect(await verifyCode(api, other.rootKey, theirs.key, 'same.slug')).toBe('VALID');
  });
});
