import { hashKey } from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectLimitExceeded, expectMissingPermissions, expectRbacNotFound, itRejectsEach } from '../assertions.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, MAX_BODY_BYTES, useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { createKeyWith, itRefusesBeforeTheLookup, verifyCode, verifyWarm } from '../rbac.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);

const setRolePermissions = (body: InputOf<'permissions.setRolePermissions'>, rootKey = owner.workspace.rootKey) =>
  api.call('permissions.setRolePermissions', body, rootKey);

async function createRole(name: string, permissions: string[] = [], rootKey = owner.workspace.rootKey) {
  const reply = await api.call('permissions.createRole', { name, permissions }, rootKey);
  if (reply.status !== 200) throw new Error(`createRole: ${JSON.stringify(reply.body)}`);
  return reply.body.data.roleId;
}

async function roleSlugs(roleId: string) {
  const found = await rows(
    api.em(),
    sql<{ slug: string }>`
      select p.slug from roles_permissions rp join permissions p on p.id = rp.permission_id
      where rp.role_id = ${roleId} order by p.slug`,
  );
  return found.map((row) => row.slug);
}

const permissionsWithSlug = async (slug: string) =>
  rows(api.em(), sql`select 1 from permissions where workspace_id = ${owner.workspace.workspaceId} and slug = ${slug}`);

/** What replacing a role's permissions takes besides slugs: both link grants, since it may add and remove. */
const LINK_GRANTS = ['rbac.*.add_permission_to_role', 'rbac.*.remove_permission_from_role'];

describe('200', () => {
  it("replaces the role's permissions and answers them by slug", async () => {
    const roleId = await createRole('replace', ['old.a', 'keep.b']);
    await api.post(
      'permissions.createPermission',
      { name: 'Described', slug: 'new.c', description: 'with text' },
      owner.workspace.rootKey,
    );
    const reply = await setRolePermissions({ roleId, permissions: ['new.c', 'keep.b', 'fresh.d'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      { id: expect.stringMatching(/^perm_/), name: 'fresh.d', slug: 'fresh.d' },
      { id: expect.stringMatching(/^perm_/), name: 'keep.b', slug: 'keep.b' },
      { id: expect.stringMatching(/^perm_/), name: 'Described', slug: 'new.c', description: 'with text' },
    ]);
    expect(await roleSlugs(roleId)).toEqual(['fresh.d', 'keep.b', 'new.c']);
    // The permission taken off the role still exists.
    expect(await permissionsWithSlug('old.a')).toHaveLength(1);
  });

  it('[] removes every permission', async () => {
    const roleId = await createRole('clear', ['c.1', 'c.2']);
    const reply = await setRolePermissions({ roleId, permissions: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(await roleSlugs(roleId)).toEqual([]);
  });

  it('is idempotent', async () => {
    const roleId = await createRole('idempotent');
    const first = await setRolePermissions({ roleId, permissions: ['i.1', 'i.2'] });
    const second = await setRolePermissions({ roleId, permissions: ['i.2', 'i.1'] });
    expect(second.body.data).toEqual(first.body.data);
  });

  it('removes duplicates case-insensitively, keeping the first spelling', async () => {
    const roleId = await createRole('dedupe');
    const reply = await setRolePermissions({ roleId, permissions: ['Dup.Slug', 'dup.slug', 'DUP.SLUG', 'other'] });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((permission) => permission.slug)).toEqual(['Dup.Slug', 'other']);
    expect(await permissionsWithSlug('dup.slug')).toHaveLength(0);
  });

  it('up to 1000 permissions in one request', async () => {
    const roleId = await createRole('big');
    const permissions = Array.from({ length: 1000 }, (_, i) => `b${i}`);
    expect(JSON.stringify({ roleId, permissions }).length).toBeLessThan(MAX_BODY_BYTES);
    const reply = await setRolePermissions({ roleId, permissions });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toHaveLength(1000);
  });

  it('a key holding the role loses a removed permission in verification at once (the cache is warm)', async () => {
    await createRole('holder', ['x', 'y']);
    const roleId = (await api.call('permissions.getRole', { role: 'holder' }, owner.workspace.rootKey)).body.data.id;
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['holder'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'x')).toBe('VALID');
    await setRolePermissions({ roleId, permissions: ['y'] });
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'x')).toBe('INSUFFICIENT_PERMISSIONS');
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'y')).toBe('VALID');
  });

  it('a key holding the role gains an added permission in verification at once (the cache is warm)', async () => {
    const roleId = await createRole('grower', ['g.1']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['grower'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'g.2')).toBe('INSUFFICIENT_PERMISSIONS');
    await setRolePermissions({ roleId, permissions: ['g.1', 'g.2'] });
    expect(await verifyCode(api, owner.workspace.rootKey, key, 'g.1 and g.2')).toBe('VALID');
  });

  it('(control) the cache is really warm, so the tests above see invalidation, not expiry', async () => {
    await createRole('control', ['ctl.x']);
    const { key } = await createKeyWith(api, owner.workspace.rootKey, owner.apiId, { roles: ['control'] });
    expect(await verifyWarm(api, owner.workspace.rootKey, key, 'ctl.x')).toBe('VALID');
    expect(api.services.keyCache.get(hashKey(key))?.value?.permissions).toContain('ctl.x');
  });

  it('concurrent sets on one role apply one after the other: the result is one of the sets, never a mix', async () => {
    const roleId = await createRole('contended');
    const sets = Array.from({ length: 6 }, (_, i) => Array.from({ length: 20 }, (_, j) => `set${i}.${j}`));
    const replies = await Promise.all(sets.map((permissions) => setRolePermissions({ roleId, permissions })));
    expect(replies.map((reply) => reply.status)).toEqual(sets.map(() => 200));
    for (const [i, reply] of replies.entries()) {
      expect(reply.body.data.map((p) => p.slug).sort()).toEqual([...(sets[i] ?? [])].sort());
    }
    const final = await roleSlugs(roleId);
    expect(sets.map((set) => [...set].sort())).toContainEqual(final);
  });

  it('with exactly add_permission_to_role and remove_permission_from_role when every slug exists', async () => {
    const roleId = await createRole('exact', ['e.1']);
    await createRole('seed-e2', ['e.2']);
    const { rootKey } = await owner.workspace.rootKeyWith([...LINK_GRANTS, 'rbac.*.read_permission']);
    expect((await setRolePermissions({ roleId, permissions: ['e.2'] }, rootKey)).status).toBe(200);
    expect((await setRolePermissions({ roleId, permissions: [] }, rootKey)).status).toBe(200);
  });

  it('plus create_permission for missing slugs', async () => {
    const roleId = await createRole('creates');
    const { rootKey } = await owner.workspace.rootKeyWith([...LINK_GRANTS, 'rbac.*.create_permission']);
    expect((await setRolePermissions({ roleId, permissions: ['made.here'] }, rootKey)).status).toBe(200);
    expect(await permissionsWithSlug('made.here')).toHaveLength(1);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.setRolePermissions', () => owner.workspace.rootKey, [
    [{ permissions: [] }, 'body.roleId'],
    [{ roleId: 'role_x' }, 'body.permissions'],
    [{ roleId: 'ro', permissions: [] }, 'body.roleId'],
    [{ roleId: 'has space', permissions: [] }, 'body.roleId'],
    [{ roleId: 'role_x', permissions: [''] }, 'body.permissions[0]'],
    [{ roleId: 'role_x', permissions: ['bad slug'] }, 'body.permissions[0]'],
    [{ roleId: 'role_x', permissions: Array.from({ length: 1001 }, (_, i) => `${i}`) }, 'body.permissions'],
    [{ roleId: 'role_x', permissions: [], extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it.each([
    ['rbac.*.add_permission_to_role', 'rbac.*.remove_permission_from_role'],
    ['rbac.*.remove_permission_from_role', 'rbac.*.add_permission_to_role'],
  ])('without %s, naming it and changing nothing', async (missing, held) => {
    const roleId = await createRole(`denied-${missing.length}-${held.length}`, ['d.1']);
    const { rootKey } = await owner.workspace.rootKeyWith([held, 'rbac.*.create_permission']);
    const reply = await setRolePermissions({ roleId, permissions: ['d.1', 'd.2'] }, rootKey);
    expectMissingPermissions(reply, `${missing}`);
    expect(await roleSlugs(roleId)).toEqual(['d.1']);
  });

  it('without read_permission, create_permission for any slug, whether it exists or not', async () => {
    const roleId = await createRole('blind', ['b.1']);
    await createRole('seed-b2', ['b.2']);
    const { rootKey } = await owner.workspace.rootKeyWith(LINK_GRANTS);
    for (const slug of ['b.2', 'b.absent']) {
      expectMissingPermissions(
        await setRolePermissions({ roleId, permissions: [slug] }, rootKey),
        'rbac.*.create_permission',
      );
    }
    expect(await roleSlugs(roleId)).toEqual(['b.1']);
  });

  it('with a missing slug but without create_permission: nothing is created or changed', async () => {
    const roleId = await createRole('no-create', ['nc.1']);
    const { rootKey } = await owner.workspace.rootKeyWith([...LINK_GRANTS, 'rbac.*.read_permission']);
    const reply = await setRolePermissions({ roleId, permissions: ['nc.absent'] }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.create_permission');
    expect(await roleSlugs(roleId)).toEqual(['nc.1']);
    expect(await permissionsWithSlug('nc.absent')).toHaveLength(0);
  });

  itRefusesBeforeTheLookup(
    'role',
    () => owner.workspace,
    ['rbac.*.read_role'],
    (id, rootKey) => setRolePermissions({ roleId: id, permissions: [] }, rootKey),
  );
});

describe('404', () => {
  it('for a role id that does not exist', async () => {
    const reply = await setRolePermissions({ roleId: 'role_doesnotexist', permissions: ['p.1'] });
    expectRbacNotFound(reply, 'role');
    expect(await permissionsWithSlug('p.1')).toHaveLength(0);
  });

  it("for a role's name: the id only is accepted", async () => {
    await createRole('by_name_only');
    expect((await setRolePermissions({ roleId: 'by_name_only', permissions: [] })).status).toBe(404);
  });
});

describe('412', () => {
  it('to grow a role past the 2000 permissions the roles of a key holding it may hold, changing nothing', async () => {
    const full = await createRole(
      'holder-full',
      Array.from({ length: 1000 }, (_, index) => `full.${index}`),
    );
    const slugs = Array.from({ length: 1000 }, (_, index) => `grow.${index}`);
    const growing = await createRole('holder-growing', slugs.slice(0, 999));
    await createRole('holder-small', ['small.one']);
    // 1000 + 999 + 1: the key's roles hold exactly the most they may.
    await owner.newKey({ roles: ['holder-full', 'holder-growing', 'holder-small'] });
    const refused = await setRolePermissions({ roleId: growing, permissions: slugs });
    expectLimitExceeded(refused, "A key's roles may hold at most 2000 permissions between them");
    expect(await roleSlugs(growing)).toHaveLength(999);
    expect(await roleSlugs(full)).toHaveLength(1000);
  });

  it("past the workspace's permissions (LIMIT_PERMISSIONS), changing nothing", async () => {
    const bounded = await api.workspace();
    const role = await api.call(
      'permissions.createRole',
      { name: 'bounded', permissions: ['docs.read'] },
      bounded.rootKey,
    );
    const roleId = role.body.data.roleId;
    const refused = await callOn(
      api,
      { limits: { permissions: 2 } },
      'permissions.setRolePermissions',
      { roleId, permissions: ['docs.read', 'docs.write', 'docs.delete'] },
      bounded.rootKey,
    );
    expectLimitExceeded(refused, 'A workspace may hold at most 2 permissions');
    expect(await roleSlugs(roleId)).toEqual(['docs.read']);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot change another workspace's role", async () => {
    const other = await api.workspace();
    const theirs = await createRole('their-role', ['their.perm'], other.rootKey);
    expect((await setRolePermissions({ roleId: theirs, permissions: [] })).status).toBe(404);
    expect(await roleSlugs(theirs)).toEqual(['their.perm']);
  });

  it("attaches this workspace's permission of a slug, never another workspace's", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    await createRole('other-holder', ['cross.slug'], other.rootKey);
    const theirKey = await createKeyWith(api, other.rootKey, otherApi, { roles: ['other-holder'] });
    const roleId = await createRole('mine');
    const reply = await setRolePermissions({ roleId, permissions: ['cross.slug'] });
    expect(reply.status).toBe(200);
    const [linked] = await rows(
      api.em(),
      sql<{ workspace_id: string }>`select workspace_id from permissions where id = ${reply.body.data[0]?.id ?? ''}`,
    );
    expect(linked?.workspace_id).toBe(owner.workspace.workspaceId);
    expect(await verifyCode(api, other.rootKey, theirKey.key, 'cross.slug')).toBe('VALID');
  });
});
