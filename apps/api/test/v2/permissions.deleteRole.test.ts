import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { keyRoleNames } from '../dbInspect.ts';
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

const deleteRole = (body: InputOf<'permissions.deleteRole'>, rootKey = owner.workspace.rootKey) =>
  api.call('permissions.deleteRole', body, rootKey);

async function createRole(name: string, permissions: string[] = [], rootKey = owner.workspace.rootKey) {
  const reply = await api.call('permissions.createRole', { name, permissions }, rootKey);
  if (reply.status !== 200) throw new Error(`createRole: ${JSON.stringify(reply.body)}`);
  return reply.body.data.roleId;
}

const roleExists = async (id: string) => (await rows(api.em(), sql`select 1 from roles where id = ${id}`)).length === 1;

describe('200', () => {
  it('by id: a hard delete answering {}, its permission links gone, the permissions kept', async () => {
    const id = await createRole('gone-by-id', ['kept.perm']);
    const reply = await deleteRole({ role: id });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await roleExists(id)).toBe(false);
    expect(await rows(api.em(), sql`select 1 from roles_permissions where role_id = ${id}`)).toHaveLength(0);
    expect(await rows(api.em(), sql`select 1 from permissions where slug = 'kept.perm'`)).toHaveLength(1);
  });

  it('by name', async () => {
    const id = await createRole('gone-by-name');
    expect((await deleteRole({ role: 'gone-by-name' })).status).toBe(200);
    expect(await roleExists(id)).toBe(false);
  });

  it('by id, leaving a role whose name is that id alone', async () => {
    const id = await createRole('target');
    const lookalike = await createRole(id);
    expect((await deleteRole({ role: id })).status).toBe(200);
    expect(await roleExists(lookalike)).toBe(true);
  });

  it("takes it off every key, leaving the keys' other roles", async () => {
    await createRole('doomed');
    await createRole('survivor');
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['doomed', 'survivor'] });
    await deleteRole({ role: 'doomed' });
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['survivor']);
  });

  it('a key holding it stops verifying for its permissions at once (the cache is warm)', async () => {
    await createRole('short-lived', ['sl.x']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['short-lived'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'sl.x')).toBe('VALID');
    await deleteRole({ role: 'short-lived' });
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'sl.x')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('racing writes that give it to keys or change it: never a 500', async () => {
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {});
    for (let round = 0; round < 15; round++) {
      const name = `racer-${round}`;
      const roleId = await createRole(name, ['race.a']);
      const [deleted, ...others] = await Promise.all([
        deleteRole({ role: name }),
        api.post('keys.addRoles', { keyId, roles: [name] }, owner.workspace.rootKey),
        api.post('keys.createKey', { apiId: owner.apiId, roles: [name] }, owner.workspace.rootKey),
        api.post('permissions.setRolePermissions', { roleId, permissions: ['race.b'] }, owner.workspace.rootKey),
      ]);
      expect(deleted?.status).toBe(200);
      // Each either ran before the delete (200) or found the role gone (404).
      for (const reply of others) expect([200, 404]).toContain(reply.status);
      expect(await roleExists(roleId)).toBe(false);
      expect(await rows(api.em(), sql`select 1 from keys_roles where role_id = ${roleId}`)).toHaveLength(0);
    }
  });

  it('with exactly rbac.*.delete_role', async () => {
    const id = await createRole('exact-grant');
    const { rootKey } = await owner.workspace.rootKeyWith(['rbac.*.delete_role']);
    expect((await deleteRole({ role: id }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.deleteRole', () => owner.workspace.rootKey, nameFieldCases('role', 'x'));
});

describe('403', () => {
  it('without rbac.*.delete_role, naming it and deleting nothing', async () => {
    const id = await createRole('kept-role');
    const { rootKey } = await owner.workspace.rootKeyWith(['rbac.*.read_role', 'rbac.*.delete_permission']);
    const reply = await deleteRole({ role: id }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.delete_role');
    expect(await roleExists(id)).toBe(true);
  });

  itRefusesBeforeTheLookup(
    'role',
    () => owner.workspace,
    ['rbac.*.read_role'],
    (id, rootKey) => deleteRole({ role: id }, rootKey),
  );
});

describe('404', () => {
  itAnswersNotFoundFor('role', ['role_doesnotexist', 'no-such-name'], (role) => deleteRole({ role }));

  it('the second of two deletes', async () => {
    const id = await createRole('twice');
    expect((await deleteRole({ role: id })).status).toBe(200);
    expect((await deleteRole({ role: id })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot delete another workspace's role, by id or by name", async () => {
    const other = await api.workspace();
    const theirs = await createRole('their-role', [], other.rootKey);
    expect((await deleteRole({ role: theirs })).status).toBe(404);
    expect((await deleteRole({ role: 'their-role' })).status).toBe(404);
    expect(await roleExists(theirs)).toBe(true);
  });

  it('deleting a name here leaves the same name of another workspace, and its keys, alone', async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    await createRole('same-name', ['same.slug'], other.rootKey);
    const theirs = await createKeyWith(api, other.rootKey, otherApi, { roles: ['same-name'] });
    await createRole('same-name', ['same.slug']);
    expect((await deleteRole({ role: 'same-name' })).status).toBe(200);
    expect(await verifyCode(api, other.rootKey, theirs.key, 'same.slug')).toBe('VALID');
  });
});
