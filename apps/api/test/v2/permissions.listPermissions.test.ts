import { beforeAll, describe, expect, it } from 'vitest';
import { useWorkspace } from '../fixtures.ts';
import { type TestWorkspace, useApi, walkList } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { createTestPermission } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const api = useApi();
const twin = shared.useListTwin(api, 'permissions.listPermissions');

const listPermissions = (body: InputOf<'permissions.listPermissions'>, rootKey: string) =>
  api.call('permissions.listPermissions', body, rootKey);

const createPermission = (rootKey: string, body: { name?: string; slug: string; description?: string }) =>
  createTestPermission(api, rootKey, { name: body.slug, ...body });

const walk = (rootKey: string, body: InputOf<'permissions.listPermissions'>, between?: () => Promise<void>) =>
  walkList(api, 'permissions.listPermissions', rootKey, body, between);

describe('200', () => {
  const workspace = useWorkspace(api);

  shared.itListsAnEmptyWorkspace(twin);

  it('answers {meta, data, pagination} with each Permission, ordered by id', async () => {
    const fresh = await api.workspace();
    const a = await createPermission(fresh.rootKey, { name: 'A', slug: 'a', description: 'first' });
    const b = await createPermission(fresh.rootKey, { name: 'B', slug: 'b' });
    const reply = await listPermissions({}, fresh.rootKey);
    expect(reply.body).toEqual({
      meta: { requestId: expect.stringMatching(/^req_/) },
      data: [
        { id: a, name: 'A', slug: 'a', description: 'first' },
        { id: b, name: 'B', slug: 'b' },
      ],
      pagination: { hasMore: false },
    });
  });

  shared.itWalksEachOnceWhileSomeAreAdded(twin);

  it('defaults to 100 a page', async () => {
    const fresh = await api.workspace();
    // createRole creates its missing slugs in one request: the quickest way to 101 permissions.
    const slugs = Array.from({ length: 101 }, (_, i) => `p${i}`);
    expect((await api.call('permissions.createRole', { name: 'bulk', permissions: slugs }, fresh.rootKey)).status).toBe(
      200,
    );
    const first = await listPermissions({}, fresh.rootKey);
    expect(first.body.data).toHaveLength(100);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await listPermissions({ cursor: first.body.pagination.cursor }, fresh.rootKey);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.pagination).toEqual({ hasMore: false });
  });

  it('limit 1 and limit 100 are accepted', async () => {
    await createPermission(workspace.rootKey, { slug: 'limit.one' });
    await createPermission(workspace.rootKey, { slug: 'limit.two' });
    expect((await listPermissions({ limit: 1 }, workspace.rootKey)).body.data).toHaveLength(1);
    expect((await listPermissions({ limit: 100 }, workspace.rootKey)).status).toBe(200);
  });

  describe('search', () => {
    let searchable: TestWorkspace;
    let ids: Record<'byName' | 'bySlug' | 'byDescription' | 'none' | 'wildcardChars', string>;
    beforeAll(async () => {
      searchable = await api.workspace();
      ids = {
        byName: await createPermission(searchable.rootKey, { name: 'Read Invoices', slug: 'n1' }),
        bySlug: await createPermission(searchable.rootKey, { name: 'x', slug: 'billing.INVOICES.write' }),
        byDescription: await createPermission(searchable.rootKey, {
          name: 'y',
          slug: 'n3',
          description: 'Lets you see invoices',
        }),
        none: await createPermission(searchable.rootKey, { name: 'z', slug: 'unrelated' }),
        wildcardChars: await createPermission(searchable.rootKey, { name: '100%_done', slug: 'pct' }),
      };
    });
    const found = async (search: string) =>
      (await walk(searchable.rootKey, { search, limit: 2 })).map((permission) => permission.id).sort();

    it('case-insensitive contains on name, slug and description', async () => {
      expect(await found('invoice')).toEqual([ids.byName, ids.bySlug, ids.byDescription].sort());
      expect(await found('INVOICE')).toEqual([ids.byName, ids.bySlug, ids.byDescription].sort());
    });

    it('on the id', async () => {
      const { none } = ids;
      expect(await found(none.slice(-10).toLowerCase())).toContain(none);
    });

    it('% and _ are plain characters', async () => {
      expect(await found('%_')).toEqual([ids.wildcardChars]);
      expect(await found('%')).toEqual([ids.wildcardChars]);
    });

    it('no match: an empty page', async () => {
      expect(await found('nothing-like-this')).toEqual([]);
    });
  });

  shared.itListsWithExactlyTheReadGrant(twin);
});

describe('400', () => {
  shared.itRejectsInvalidPaging(twin, [
    [{ cursor: 'c'.repeat(1025) }, 'body.cursor'],
    [{ limit: 1.5 }, 'body.limit'],
    [{ limit: '10' }, 'body.limit'],
    // A cursor that is no cursor of ours.
    [{ cursor: 'perm_123' }, 'body.cursor'],
  ]);
});

describe('403', () => {
  shared.itNeedsTheReadGrant(twin, ['rbac.*.read_role', 'rbac.*.create_permission']);
});

describe('cross-workspace isolation', () => {
  shared.itListsOnlyTheCallers(twin);
});
