import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectLimitExceeded, expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, MAX_BODY_BYTES } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { createKeyWith, verifyCode } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const { api, workspace } = useApiWithWorkspace();
const twin = shared.useCreateTwin(api, 'permissions.createRole', () => workspace);

const createRole = (body: InputOf<'permissions.createRole'>, rootKey = workspace.rootKey) =>
  api.call('permissions.createRole', body, rootKey);

const permissionsWithSlug = async (slug: string) =>
  rows(api.em(), sql`select 1 from permissions where workspace_id = ${workspace.workspaceId} and slug = ${slug}`);

describe('200', () => {
  shared.itCreatesOne(twin, 'creates a role with a description and no permissions', {
    input: { name: 'empty', description: 'Nothing yet' },
    besides: { slugs: [] },
  });

  it('reuses existing permissions and creates missing ones (name = slug)', async () => {
    const existing = await api.call(
      'permissions.createPermission',
      { name: 'Existing one', slug: 'existing.perm' },
      workspace.rootKey,
    );
    const reply = await createRole({ name: 'mixed', permissions: ['existing.perm', 'new.perm', 'new.perm'] });
    expect(reply.status).toBe(200);
    expect((await twin.stored(reply.body.data.roleId))?.slugs).toEqual(['existing.perm', 'new.perm']);
    const [kept] = await rows(
      api.em(),
      sql<{ id: string; name: string }>`select id, name from permissions where slug = 'existing.perm'`,
    );
    expect(kept).toEqual({ id: existing.body.data.permissionId, name: 'Existing one' });
    const [created] = await rows(api.em(), sql<{ name: string }>`select name from permissions where slug = 'new.perm'`);
    expect(created?.name).toBe('new.perm');
  });

  it('with 1000 permissions in one request, all created and attached', async () => {
    const slugs = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const body = { name: 'thousand', permissions: slugs };
    expect(JSON.stringify(body).length).toBeLessThan(MAX_BODY_BYTES);
    const reply = await createRole(body);
    expect(reply.status).toBe(200);
    expect((await twin.stored(reply.body.data.roleId))?.slugs).toHaveLength(1000);
    const got = await api.call('permissions.getRole', { role: 'thousand' }, workspace.rootKey);
    expect(got.body.data.permissions).toHaveLength(1000);
  });

  it('a key given the new role verifies for its permissions', async () => {
    await createRole({ name: 'verifier', permissions: ['v.read', 'v.write'] });
    const apiId = await createTestApi(api, workspace.rootKey);
    const { key } = await createKeyWith(api, workspace.rootKey, apiId, { roles: ['verifier'] });
    expect(await verifyCode(api, workspace.rootKey, key, 'v.read and v.write')).toBe('VALID');
  });

  it('with exactly rbac.*.create_role when there are no permissions', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.create_role']);
    expect((await createRole({ name: 'bare' }, rootKey)).status).toBe(200);
    expect((await createRole({ name: 'bare-empty', permissions: [] }, rootKey)).status).toBe(200);
  });

  it('with create_role, add_permission_to_role and read_permission when every slug exists', async () => {
    await createRole({ name: 'seed', permissions: ['seeded.slug'] });
    const { rootKey } = await workspace.rootKeyWith([
      'rbac.*.create_role',
      'rbac.*.add_permission_to_role',
      'rbac.*.read_permission',
    ]);
    expect((await createRole({ name: 'reuser', permissions: ['seeded.slug'] }, rootKey)).status).toBe(200);
  });

  it('with create_role, add_permission_to_role and create_permission for missing slugs', async () => {
    const { rootKey } = await workspace.rootKeyWith([
      'rbac.*.create_role',
      'rbac.*.add_permission_to_role',
      'rbac.*.create_permission',
    ]);
    expect((await createRole({ name: 'creator', permissions: ['brand.new'] }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.createRole', () => workspace.rootKey, [
    [{}, 'body.name'],
    [{ name: '' }, 'body.name'],
    [{ name: 'r'.repeat(129) }, 'body.name'],
    [{ name: 'has space' }, 'body.name'],
    [{ name: 'r', description: 'd'.repeat(513) }, 'body.description'],
    [{ name: 'r', permissions: 'p' }, 'body.permissions'],
    [{ name: 'r', permissions: [''] }, 'body.permissions[0]'],
    [{ name: 'r', permissions: ['ok', 'bad slug'] }, 'body.permissions[1]'],
    [{ name: 'r', permissions: ['p'.repeat(129)] }, 'body.permissions[0]'],
    [{ name: 'r', permissions: Array.from({ length: 1001 }, (_, i) => `${i}`) }, 'body.permissions'],
    [{ name: 'r', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  shared.itNeedsTheCreateGrant(twin, ['rbac.*.read_role']);

  it('with permissions but without rbac.*.add_permission_to_role, naming it', async () => {
    await createRole({ name: 'seed2', permissions: ['present.slug'] });
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.create_role', 'rbac.*.create_permission']);
    const reply = await createRole({ name: 'denied-link', permissions: ['present.slug'] }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.add_permission_to_role');
    expect(await twin.countNamed('denied-link')).toBe(0);
  });

  it('without rbac.*.read_permission, rbac.*.create_permission for any slug, whether it exists or not', async () => {
    await createRole({ name: 'seed3', permissions: ['existing.slug3'] });
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.create_role', 'rbac.*.add_permission_to_role']);
    // Otherwise a 200 for a slug that exists and a 403 for one that does not would tell which do.
    for (const slug of ['existing.slug3', 'absent.slug3']) {
      expectMissingPermissions(
        await createRole({ name: `blind-${slug}`, permissions: [slug] }, rootKey),
        'rbac.*.create_permission',
      );
    }
    expect(await permissionsWithSlug('absent.slug3')).toHaveLength(0);
  });

  it('with a missing slug but without rbac.*.create_permission: nothing is created', async () => {
    const { rootKey } = await workspace.rootKeyWith([
      'rbac.*.create_role',
      'rbac.*.add_permission_to_role',
      'rbac.*.read_permission',
    ]);
    const reply = await createRole({ name: 'denied-create', permissions: ['present.slug', 'absent.slug'] }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.create_permission');
    expect(await twin.countNamed('denied-create')).toBe(0);
    expect(await permissionsWithSlug('absent.slug')).toHaveLength(0);
  });
});

describe('409', () => {
  it('for a name the workspace already has; nothing of the second request is kept', async () => {
    const first = await createRole({ name: 'taken', permissions: ['first.slug'] });
    const reply = await createRole({ name: 'taken', permissions: ['second.slug'] });
    expectProblem(reply, 409, 'service/data/role_already_exists');
    expect(reply.body.error.detail).toBe("A role with name 'taken' already exists in this workspace");
    expect((await twin.stored(first.body.data.roleId))?.slugs).toEqual(['first.slug']);
    expect(await permissionsWithSlug('second.slug')).toHaveLength(0);
  });

  // The new slugs of the two are created once.
  shared.itLetsOneOfTwoRacingCreatesWin(twin, {
    more: (round) => ({ permissions: [`race.${round}.a`, `race.${round}.b`] }),
    check: async (round) => expect(await permissionsWithSlug(`race.${round}.a`)).toHaveLength(1),
  });

  it('concurrent creates of different roles sharing new slugs all succeed, each slug created once', async () => {
    const shared = ['shared.1', 'shared.2', 'shared.3'];
    const replies = await Promise.all(
      ['s-1', 's-2', 's-3', 's-4'].map((name) => createRole({ name, permissions: [...shared].reverse() })),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    for (const slug of shared) expect(await permissionsWithSlug(slug)).toHaveLength(1);
  });
});

describe('412', () => {
  it("past the workspace's roles (LIMIT_ROLES) or permissions (LIMIT_PERMISSIONS), creating nothing", async () => {
    const bounded = await api.workspace();
    const create = (limits: { roles?: number; permissions?: number }, body: InputOf<'permissions.createRole'>) =>
      callOn(api, { limits }, 'permissions.createRole', body, bounded.rootKey);
    expect((await create({ roles: 1 }, { name: 'first' })).status).toBe(200);
    expectLimitExceeded(await create({ roles: 1 }, { name: 'second' }), 'A workspace may hold at most 1 roles');
    expectLimitExceeded(
      await create({ permissions: 1 }, { name: 'third', permissions: ['docs.read', 'docs.write'] }),
      'A workspace may hold at most 1 permissions',
    );
    const [held] = await rows(
      api.em(),
      sql<{ roles: number; permissions: number }>`select
        (select count(*)::int from roles where workspace_id = ${bounded.workspaceId}) as roles,
        (select count(*)::int from permissions where workspace_id = ${bounded.workspaceId}) as permissions`,
    );
    expect(held).toEqual({ roles: 1, permissions: 0 });
  });
});

describe('cross-workspace isolation', () => {
  it('a name another workspace has is free here; its same-slug permissions are not reused', async () => {
    const other = await api.workspace();
    const theirs = await createRole({ name: 'both', permissions: ['both.slug'] }, other.rootKey);
    const mine = await createRole({ name: 'both', permissions: ['both.slug'] });
    expect(theirs.status).toBe(200);
    expect(mine.status).toBe(200);
    const [linked] = await rows(
      api.em(),
      sql<{ workspace_id: string }>`
        select p.workspace_id from roles_permissions rp join permissions p on p.id = rp.permission_id
        where rp.role_id = ${mine.body.data.roleId}`,
    );
    expect(linked?.workspace_id).toBe(workspace.workspaceId);
    expect((await twin.stored(theirs.body.data.roleId))?.workspace_id).toBe(other.workspaceId);
  });
});
