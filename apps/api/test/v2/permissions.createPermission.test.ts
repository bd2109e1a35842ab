import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectLimitExceeded, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import * as shared from '../rbacCases.ts';

const { api, workspace } = useApiWithWorkspace();
const twin = shared.useCreateTwin(api, 'permissions.createPermission', () => workspace);

const createPermission = (body: InputOf<'permissions.createPermission'>, rootKey = workspace.rootKey) =>
  api.call('permissions.createPermission', body, rootKey);

describe('200', () => {
  shared.itCreatesOne(twin, 'creates the permission with its name, slug and description', {
    input: { name: 'Read documents', slug: 'docs.read', description: 'Reads them' },
  });

  it('without a description, and with every character the slug pattern allows, 128 long', async () => {
    const slug = `a-Z_0:9.*${'x'.repeat(119)}`;
    const reply = await createPermission({ name: 'n', slug });
    expect(reply.status).toBe(200);
    expect(await twin.stored(reply.body.data.permissionId)).toMatchObject({ slug, description: null });
  });

  it('slugs differing only in letter case are different permissions', async () => {
    expect((await createPermission({ name: 'lower', slug: 'case.test' })).status).toBe(200);
    expect((await createPermission({ name: 'upper', slug: 'CASE.test' })).status).toBe(200);
  });

  it('with exactly rbac.*.create_permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.create_permission']);
    expect((await createPermission({ name: 'n', slug: 'exact.grant' }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.createPermission', () => workspace.rootKey, [
    [{ slug: 's' }, 'body.name'],
    [{ name: 'n' }, 'body.slug'],
    [{ name: '', slug: 's' }, 'body.name'],
    [{ name: 'n'.repeat(513), slug: 's' }, 'body.name'],
    [{ name: 'n', slug: '' }, 'body.slug'],
    [{ name: 'n', slug: 's'.repeat(129) }, 'body.slug'],
    [{ name: 'n', slug: 'has space' }, 'body.slug'],
    [{ name: 'n', slug: 'slash/no' }, 'body.slug'],
    [{ name: 'n', slug: 's', description: 'd'.repeat(513) }, 'body.description'],
    [{ name: 'n', slug: 's', description: 7 }, 'body.description'],
    [{ name: 'n', slug: 's', extra: true }, 'body.extra'],
  ]);
});

describe('403', () => {
  shared.itNeedsTheCreateGrant(twin, ['rbac.*.read_permission', 'api.*.create_key']);
});

describe('409', () => {
  it('for a slug the workspace already has, naming it', async () => {
    expect((await createPermission({ name: 'first', slug: 'dup.slug' })).status).toBe(200);
    const reply = await createPermission({ name: 'second', slug: 'dup.slug' });
    expect(reply.status).toBe(409);
    expect(reply.body.error.title).toBe('Conflicting Resource');
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/permission_already_exists`);
    expect(reply.body.error.detail).toBe("A permission with slug 'dup.slug' already exists in this workspace");
    const found = await rows(api.em(), sql<{ name: string }>`select name from permissions where slug = 'dup.slug'`);
    expect(found).toEqual([{ name: 'first' }]);
  });

  it('for a slug created on the fly by keys.createKey', async () => {
    const apiId = (await api.call('apis.createApi', { name: 'test-api' }, workspace.rootKey)).body.data.apiId;
    await api.post('keys.createKey', { apiId, permissions: ['implicit.slug'] }, workspace.rootKey);
    expect((await createPermission({ name: 'n', slug: 'implicit.slug' })).status).toBe(409);
  });

  shared.itLetsOneOfTwoRacingCreatesWin(twin);
});

describe('412', () => {
  it("past the workspace's permissions (LIMIT_PERMISSIONS), storing nothing; a taken slug is still a 409", async () => {
    const bounded = await api.workspace();
    const create = (slug: string) =>
      callOn(
        api,
        { limits: { permissions: 1 } },
        'permissions.createPermission',
        { name: slug, slug },
        bounded.rootKey,
      );
    expect((await create('docs.read')).status).toBe(200);
    expectLimitExceeded(await create('docs.write'), 'A workspace may hold at most 1 permissions');
    expect((await create('docs.read')).status).toBe(409);
    const [held] = await rows(
      api.em(),
      sql<{
        count: number;
      }>`select count(*)::int as count from permissions where workspace_id = ${bounded.workspaceId}`,
    );
    expect(held?.count).toBe(1);
  });
});

describe('cross-workspace isolation', () => {
  it('a slug another workspace has is free in this one, and theirs is left alone', async () => {
    const other = await api.workspace();
    const theirs = await createPermission({ name: 'theirs', slug: 'shared.slug' }, other.rootKey);
    const mine = await createPermission({ name: 'mine', slug: 'shared.slug' });
    expect(theirs.status).toBe(200);
    expect(mine.status).toBe(200);
    expect(await twin.stored(theirs.body.data.permissionId)).toMatchObject({
      workspace_id: other.workspaceId,
      name: 'theirs',
    });
    expect(await twin.stored(mine.body.data.permissionId)).toMatchObject({
      workspace_id: workspace.workspaceId,
      name: 'mine',
    });
  });
});
