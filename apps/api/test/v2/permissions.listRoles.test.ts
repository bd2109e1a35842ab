import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { type TestWorkspace, useApi, walkList } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();

const listRoles = (body: InputOf<'permissions.listRoles'>, rootKey: string) =>
  api.call('permissions.listRoles', body, rootKey);

async function createRole(rootKey: string, body: InputOf<'permissions.createRole'>) {
  const reply = await api.call('permissions.createRole', body, rootKey);
  if (reply.status !== 200) throw new Error(`createRole: ${JSON.stringify(reply.body)}`);
  return reply.body.data.roleId;
}

const walk = (rootKey: string, body: InputOf<'permissions.listRoles'>, between?: () => Promise<void>) =>
  walkList(api, 'permissions.listRoles', rootKey, body, between);

describe('200', () => {
  it('an empty workspace: no data, no more', async () => {
    const empty = await api.workspace();
    const reply = await listRoles({}, empty.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });

  it('answers {meta, data, pagination} with each Role and its permissions, ordered by id', async () => {
    const fresh = await api.workspace();
    const admin = await createRole(fresh.rootKey, { name: 'admin', description: 'All', permissions: ['b.x', 'a.x'] });
    const guest = await createRole(fresh.rootKey, { name: 'guest' });
    const reply = await listRoles({}, fresh.rootKey);
    expect(reply.body).toEqual({
      meta: { requestId: expect.stringMatching(/^req_/) },
      data: [
        {
          id: admin,
          name: 'admin',
          description: 'All',
          permissions: [
            { id: expect.stringMatching(/^perm_/), name: 'a.x', slug: 'a.x' },
            { id: expect.stringMatching(/^perm_/), name: 'b.x', slug: 'b.x' },
          ],
        },
        { id: guest, name: 'guest', permissions: [] },
      ],
      pagination: { hasMore: false },
    });
  });

  it('ends a page early once its roles would carry more than 1000 permissions, and a walk still sees them all', async () => {
    const fresh = await api.workspace();
    const slugs = (role: number) => Array.from({ length: 600 }, (_, index) => `heavy.${role}.${index}`);
    const heavy = [];
    for (let role = 0; role < 3; role++)
      heavy.push(await createRole(fresh.rootKey, { name: `heavy-${role}`, permissions: slugs(role) }));
    const light = await createRole(fresh.rootKey, { name: 'light', permissions: ['light.read'] });
    const first = await listRoles({ limit: 100 }, fresh.rootKey);
    expect(first.body.data.map((role) => role.id)).toEqual([heavy[0]]);
    expect(first.body.pagination.hasMore).toBe(true);
    const seen = await walk(fresh.rootKey, { limit: 100 });
    for (const role of seen) expect(role.permissions).toHaveLength(role.id === light ? 1 : 600);
    // 600 + 600 would pass 1000: each heavy role is a page of its own, the light one joins the last.
    expect(seen.map((role) => role.id)).toEqual([...heavy, light]);
  });

  it('a walk visits every role exactly once while roles are added between pages, new roles included', async () => {
    const fresh = await api.workspace();
    const before = [];
    for (let i = 0; i < 7; i++)
      before.push(await createRole(fresh.rootKey, { name: `walk-${i}`, permissions: [`w.${i}`] }));
    const added: string[] = [];
    const seen = await walk(fresh.rootKey, { limit: 3 }, async () => {
      added.push(await createRole(fresh.rootKey, { name: `added-${added.length}` }));
    });
    const ids = seen.map((role) => role.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(ids.sort()).toEqual([...before, ...added].sort());
    for (const role of seen.filter((r) => r.name.startsWith('walk-'))) {
      expect(role.permissions.map((p) => p.slug)).toEqual([`w.${role.name.slice(5)}`]);
    }
  });

  it('a full page of roles each with many permissions', async () => {
    const fresh = await api.workspace();
    for (let i = 0; i < 20; i++) {
      await createRole(fresh.rootKey, { name: `r${i}`, permissions: Array.from({ length: 50 }, (_, j) => `s${j}`) });
    }
    const reply = await listRoles({ limit: 100 }, fresh.rootKey);
    expect(reply.body.data).toHaveLength(20);
    for (const role of reply.body.data) expect(role.permissions).toHaveLength(50);
  });

  describe('search', () => {
    let searchable: TestWorkspace;
    let ids: Record<'byName' | 'byDescription' | 'none', string>;
    beforeAll(async () => {
      searchable = await api.workspace();
      ids = {
        byName: await createRole(searchable.rootKey, { name: 'Billing-Admin' }),
        byDescription: await createRole(searchable.rootKey, { name: 'r2', description: 'manages BILLING' }),
        none: await createRole(searchable.rootKey, { name: 'r3', permissions: ['billing.read'] }),
      };
    });
    const found = async (search: string) =>
      (await walk(searchable.rootKey, { search, limit: 1 })).map((role) => role.id).sort();

    it('case-insensitive contains on name and description, not on permission slugs', async () => {
      expect(await found('billing')).toEqual([ids.byName, ids.byDescription].sort());
      expect(await found('BiLLinG')).toEqual([ids.byName, ids.byDescription].sort());
    });

    it('on the id', async () => {
      const { none } = ids;
      expect(await found(none.toUpperCase())).toEqual([none]);
    });

    it('no match: an empty page', async () => {
      expect(await found('zzz-nothing')).toEqual([]);
    });
  });
});

describe('400', () => {
  const workspace = useWorkspace(api);

  itRejectsEach(api, 'permissions.listRoles', () => workspace.rootKey, [
    [{ limit: 0 }, 'body.limit'],
    [{ limit: 101 }, 'body.limit'],
    [{ limit: -1 }, 'body.limit'],
    [{ cursor: '' }, 'body.cursor'],
    [{ cursor: 'garbage' }, 'body.cursor'],
    [{ search: 's'.repeat(257) }, 'body.search'],
    [{ extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('without rbac.*.read_role, naming it', async () => {
    const workspace = await api.workspace();
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_permission']);
    const reply = await listRoles({}, rootKey);
    expectMissingPermissions(reply, 'rbac.*.read_role');
  });

  it('with exactly rbac.*.read_role: 200', async () => {
    const workspace = await api.workspace();
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_role']);
    expect((await listRoles({}, rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("lists only the caller's roles, whatever the search", async () => {
    const mine = await api.workspace();
    const theirs = await api.workspace();
    const own = await createRole(mine.rootKey, { name: 'iso-shared' });
    await createRole(theirs.rootKey, { name: 'iso-shared' });
    await createRole(theirs.rootKey, { name: 'iso-theirs' });
    expect((await walk(mine.rootKey, {})).map((role) => role.id)).toEqual([own]);
    expect((await walk(mine.rootKey, { search: 'iso' })).map((role) => role.id)).toEqual([own]);
  });

  it("another workspace's cursor is a 400, never a way into its rows", async () => {
    const mine = await api.workspace();
    const theirs = await api.workspace();
    await createRole(theirs.rootKey, { name: 'c-1' });
    await createRole(theirs.rootKey, { name: 'c-2' });
    const page = await listRoles({ limit: 1 }, theirs.rootKey);
    expectInvalidInput(await listRoles({ cursor: page.body.pagination.cursor }, mine.rootKey), 'body.cursor');
  });
});
