import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { type TestWorkspace, useApi, walkList } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();

const listPermissions = (body: InputOf<'permissions.listPermissions'>, rootKey: string) =>
  api.call('permissions.listPermissions', body, rootKey);

async function createPermission(rootKey: string, body: { name?: string; slug: string; description?: string }) {
  const reply = await api.call('permissions.createPermission', { name: body.slug, ...body }, rootKey);
  if (reply.status !== 200) throw new Error(`createPermission: ${JSON.stringify(reply.body)}`);
  return reply.body.data.permissionId;
}

const walk = (rootKey: string, body: InputOf<'permissions.listPermissions'>, between?: () => Promise<void>) =>
  walkList(api, 'permissions.listPermissions', rootKey, body, between);

describe('200', () => {
  const workspace = useWorkspace(api);

  it('an empty workspace: no data, no more', async () => {
    const empty = await api.workspace();
    const reply = await listPermissions({}, empty.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });

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

  it('a walk visits every row exactly once while rows are added between pages, new rows included', async () => {
    const fresh = await api.workspace();
    const before = [];
    for (let i = 0; i < 7; i++) before.push(await createPermission(fresh.rootKey, { slug: `walk.${i}` }));
    const added: string[] = [];
    const seen = await walk(fresh.rootKey, { limit: 3 }, async () => {
      added.push(await createPermission(fresh.rootKey, { slug: `added.${added.length}` }));
    });
    const ids = seen.map((permission) => permission.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(before));
    // Ids sort by creation, so rows added during the walk come after the cursor and are seen too.
    expect(ids.sort()).toEqual([...before, ...added].sort());
  });

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
});

describe('400', () => {
  const workspace = useWorkspace(api);

  itRejectsEach(api, 'permissions.listPermissions', () => workspace.rootKey, [
    [{ limit: 0 }, 'body.limit'],
    [{ limit: 101 }, 'body.limit'],
    [{ limit: 1.5 }, 'body.limit'],
    [{ limit: '10' }, 'body.limit'],
    [{ cursor: '' }, 'body.cursor'],
    [{ cursor: 'c'.repeat(1025) }, 'body.cursor'],
    [{ search: 's'.repeat(257) }, 'body.search'],
    [{ extra: 1 }, 'body.extra'],
  ]);

  it('a cursor that is no cursor of ours', async () => {
    expectInvalidInput(await listPermissions({ cursor: 'perm_123' }, workspace.rootKey), 'body.cursor');
  });
});

describe('403', () => {
  it('without rbac.*.read_permission, naming it', async () => {
    const workspace = await api.workspace();
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_role', 'rbac.*.create_permission']);
    const reply = await listPermissions({}, rootKey);
    expectMissingPermissions(reply, 'rbac.*.read_permission');
  });

  it('with exactly rbac.*.read_permission: 200', async () => {
    const workspace = await api.workspace();
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_permission']);
    expect((await listPermissions({}, rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("lists only the caller's permissions, whatever the search", async () => {
    const mine = await api.workspace();
    const theirs = await api.workspace();
    const own = await createPermission(mine.rootKey, { slug: 'iso.shared' });
    await createPermission(theirs.rootKey, { slug: 'iso.shared' });
    await createPermission(theirs.rootKey, { slug: 'iso.theirs' });
    expect((await walk(mine.rootKey, {})).map((permission) => permission.id)).toEqual([own]);
    expect((await walk(mine.rootKey, { search: 'iso' })).map((permission) => permission.id)).toEqual([own]);
  });

  it("another workspace's cursor is a 400, never a way into its rows", async () => {
    const mine = await api.workspace();
    const theirs = await api.workspace();
    await createPermission(theirs.rootKey, { slug: 'c.1' });
    await createPermission(theirs.rootKey, { slug: 'c.2' });
    const page = await listPermissions({ limit: 1 }, theirs.rootKey);
    expectInvalidInput(await listPermissions({ cursor: page.body.pagination.cursor }, mine.rootKey), 'body.cursor');
  });
});
