import { beforeAll, describe, expect, it } from 'vitest';
import { type TestWorkspace, useApi, walkList } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { createTestRole } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const api = useApi();
const twin = shared.useListTwin(api, 'permissions.listRoles');

const listRoles = (body: InputOf<'permissions.listRoles'>, rootKey: string) =>
  api.call('permissions.listRoles', body, rootKey);

const createRole = (rootKey: string, body: InputOf<'permissions.createRole'>) => createTestRole(api, rootKey, body);

const walk = (rootKey: string, body: InputOf<'permissions.listRoles'>, between?: () => Promise<void>) =>
  walkList(api, 'permissions.listRoles', rootKey, body, between);

describe('200', () => {
  shared.itListsAnEmptyWorkspace(twin);

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

  shared.itWalksEachOnceWhileSomeAreAdded(twin, {
    seed: (rootKey, index) => createRole(rootKey, { name: `walk-${index}`, permissions: [`w.${index}`] }),
    check: (seen) => {
      for (const role of seen.filter((r) => r.name.startsWith('walk-'))) {
        expect(role.permissions?.map((p) => p.slug)).toEqual([`w.${role.name.slice(5)}`]);
      }
    },
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

  shared.itListsWithExactlyTheReadGrant(twin);
});

describe('400', () => {
  shared.itRejectsInvalidPaging(twin, [
    [{ limit: -1 }, 'body.limit'],
    [{ cursor: 'garbage' }, 'body.cursor'],
  ]);
});

describe('403', () => {
  shared.itNeedsTheReadGrant(twin, ['rbac.*.read_permission']);
});

describe('cross-workspace isolation', () => {
  shared.itListsOnlyTheCallers(twin);
});
