import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { keyRoleNames } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, useApi } from '../harness.ts';
import { createKeyWith, createTestRole, itAnswersNotFoundFor, verifyCode, verifyWarm } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);
const twin = shared.useItemTwin(api, 'permissions.deleteRole', () => owner.workspace);

const createRole = (name: string, permissions: string[] = [], rootKey = owner.workspace.rootKey) =>
  createTestRole(api, rootKey, { name, permissions });

describe('200', () => {
  it('by id: a hard delete answering {}, its permission links gone, the permissions kept', async () => {
    const id = await createRole('gone-by-id', ['kept.perm']);
    const reply = await twin.send(id);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await twin.exists(id)).toBe(false);
    expect(await rows(api.em(), sql`select 1 from roles_permissions where role_id = ${id}`)).toHaveLength(0);
    expect(await rows(api.em(), sql`select 1 from permissions where slug = 'kept.perm'`)).toHaveLength(1);
  });

  shared.itDeletesByHandleOrId(twin);

  it("takes it off every key, leaving the keys' other roles", async () => {
    await createRole('doomed');
    await createRole('survivor');
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['doomed', 'survivor'] });
    await twin.send('doomed');
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['survivor']);
  });

  it('a key holding it stops verifying for its permissions at once (the cache is warm)', async () => {
    await createRole('short-lived', ['sl.x']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['short-lived'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'sl.x')).toBe('VALID');
    await twin.send('short-lived');
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'sl.x')).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('racing writes that give it to keys or change it: never a 500', async () => {
    const { keyId } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, {});
    for (let round = 0; round < 15; round++) {
      const name = `racer-${round}`;
      const roleId = await createRole(name, ['race.a']);
      const [deleted, ...others] = await Promise.all([
        twin.send(name),
        api.post('keys.addRoles', { keyId, roles: [name] }, owner.workspace.rootKey),
        api.post('keys.createKey', { apiId: owner.apiId, roles: [name] }, owner.workspace.rootKey),
        api.post('permissions.setRolePermissions', { roleId, permissions: ['race.b'] }, owner.workspace.rootKey),
      ]);
      expect(deleted?.status).toBe(200);
      // Each either ran before the delete (200) or found the role gone (404).
      for (const reply of others) expect([200, 404]).toContain(reply.status);
      expect(await twin.exists(roleId)).toBe(false);
      expect(await rows(api.em(), sql`select 1 from keys_roles where role_id = ${roleId}`)).toHaveLength(0);
    }
  });

  shared.itAnswersWithExactlyTheGrant(twin, 'delete');
});

describe('400', () => {
  shared.itRejectsInvalidNames(twin, 'x');
});

describe('403', () => {
  shared.itNeedsTheGrant(twin, 'delete', {
    others: ['rbac.*.read_role', 'rbac.*.delete_permission'],
    beforeLookup: ['rbac.*.read_role'],
  });
});

describe('404', () => {
  itAnswersNotFoundFor('role', ['role_doesnotexist', 'no-such-name'], twin.send);

  shared.itAnswersTheSecondDeleteNotFound(twin);
});

describe('cross-workspace isolation', () => {
  shared.itKeepsWorkspacesApart(twin);

  it('deleting a name here leaves the same name of another workspace, and its keys, alone', async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    await createRole('same-name', ['same.slug'], other.rootKey);
    const theirs = await createKeyWith(api, other.rootKey, otherApi, { roles: ['same-name'] });
    await createRole('same-name', ['same.slug']);
    expect((await twin.send('same-name')).status).toBe(200);
    expect(await verifyCode(api, other.rootKey, theirs.key, 'same.slug')).toBe('VALID');
  });
});
