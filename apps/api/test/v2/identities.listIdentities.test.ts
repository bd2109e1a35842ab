import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput } from '../assertions.ts';
import { createTestIdentity } from '../fixtures.ts';
import { type TestWorkspace, useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();

async function list(body: InputOf<'identities.listIdentities'>, rootKey: string) {
  const reply = await api.call('identities.listIdentities', body, rootKey);
  const { data, pagination, error } = reply.body;
  return { status: reply.status, data, pagination, error };
}

/** A fresh workspace with `count` identities `<prefix>_<n>`; their ids in creation order. */
async function workspaceWith(count: number, prefix = 'user') {
  const workspace = await api.workspace();
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push(await createTestIdentity(api, workspace.rootKey, { externalId: `${prefix}_${i}` }));
  return { workspace, ids };
}

/** Every page from the first on; `between` runs after each page. */
async function walk(
  rootKey: string,
  body: InputOf<'identities.listIdentities'>,
  between: () => Promise<void> = async () => {},
) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await list({ ...body, ...(cursor ? { cursor } : {}) }, rootKey);
    expect(page.status).toBe(200);
    seen.push(...page.data.map((identity) => identity.id));
    if (!page.pagination.hasMore) {
      expect(page.pagination.cursor).toBeUndefined();
      return seen;
    }
    expect(page.data).toHaveLength(body.limit as number);
    cursor = page.pagination.cursor;
    expect(cursor).toEqual(expect.any(String));
    await between();
  }
  throw new Error('the walk did not end');
}

describe('200', () => {
  it('lists every live identity in id (= creation) order, with meta and rate limits', async () => {
    const { workspace, ids } = await workspaceWith(3);
    const limited = await createTestIdentity(api, workspace.rootKey, {
      externalId: 'limited',
      meta: { tier: 'gold' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000, autoApply: true }],
    });
    const page = await list({}, workspace.rootKey);
    expect(page.status).toBe(200);
    expect(page.pagination).toEqual({ hasMore: false });
    expect(page.data.map((identity) => identity.id)).toEqual([...ids, limited]);
    expect(page.data[0]).toEqual({ id: ids[0], externalId: 'user_0' });
    expect(page.data[3]).toEqual({
      id: limited,
      externalId: 'limited',
      meta: { tier: 'gold' },
      ratelimits: [{ id: expect.stringMatching(/^rl_/), name: 'requests', limit: 10, duration: 1000, autoApply: true }],
    });
  });

  it('ends a page early once its identities carry more than 2 MiB of meta, and a walk still sees them all', async () => {
    const { workspace, ids } = await workspaceWith(4, 'heavy');
    // 900 kB of meta each (written directly: a request body is smaller here), the last one none.
    await rows(
      api.em(),
      sql`update identities set meta = jsonb_build_object('blob', repeat('x', 900000)) where id = any(${ids.slice(0, 3)}::text[])`,
    );
    const first = await list({}, workspace.rootKey);
    expect(first.data.map((identity) => identity.id)).toEqual(ids.slice(0, 2));
    expect(first.pagination.hasMore).toBe(true);
    const second = await list({ cursor: first.pagination.cursor }, workspace.rootKey);
    expect(second.data.map((identity) => identity.id)).toEqual(ids.slice(2));
    expect(second.pagination).toEqual({ hasMore: false });
  });

  it('an empty workspace: an empty page', async () => {
    const workspace = await api.workspace();
    const page = await list({}, workspace.rootKey);
    expect(page.status).toBe(200);
    expect(page.data).toEqual([]);
    expect(page.pagination).toEqual({ hasMore: false });
  });

  it('to a root key whose grants name identities, those alone, searched among themselves', async () => {
    const { workspace, ids } = await workspaceWith(3, 'granted');
    const { rootKey } = await workspace.rootKeyWith([
      `identity.${ids[0]}.read_identity`,
      `identity.${ids[2]}.read_identity`,
    ]);
    const page = await list({ limit: 1 }, rootKey);
    expect(page.data.map((identity) => identity.id)).toEqual([ids[0]]);
    const next = await list({ limit: 1, cursor: page.pagination.cursor }, rootKey);
    expect(next.data.map((identity) => identity.id)).toEqual([ids[2]]);
    expect(next.pagination).toEqual({ hasMore: false });
    // A search that matches only an identity it may not read finds nothing, as one matching none.
    expect((await list({ search: 'granted_1' }, rootKey)).data).toEqual([]);
    expect((await list({ search: 'granted_2' }, rootKey)).data.map((identity) => identity.id)).toEqual([ids[2]]);
  });

  it('leaves out deleted identities', async () => {
    const { workspace, ids } = await workspaceWith(3);
    await api.post('identities.deleteIdentity', { identity: ids[1] }, workspace.rootKey);
    expect((await list({}, workspace.rootKey)).data.map((identity) => identity.id)).toEqual([ids[0], ids[2]]);
  });

  it('limit: 100 by default, 1 and 100 at the bounds', async () => {
    const workspace = await api.workspace();
    const ids: string[] = [];
    for (let batch = 0; batch < 101; batch += 20) {
      const size = Math.min(20, 101 - batch);
      ids.push(
        ...(await Promise.all(
          Array.from({ length: size }, (_, i) =>
            createTestIdentity(api, workspace.rootKey, { externalId: `bulk_${batch + i}` }),
          ),
        )),
      );
    }
    const sorted = [...ids].sort();
    const byDefault = await list({}, workspace.rootKey);
    expect(byDefault.data.map((identity) => identity.id)).toEqual(sorted.slice(0, 100));
    expect(byDefault.pagination.hasMore).toBe(true);
    const atMost = await list({ limit: 100 }, workspace.rootKey);
    expect(atMost.data).toHaveLength(100);
    const next = await list({ limit: 100, cursor: atMost.pagination.cursor }, workspace.rootKey);
    expect(next.data.map((identity) => identity.id)).toEqual([sorted[100]]);
    expect(next.pagination).toEqual({ hasMore: false });
    const one = await list({ limit: 1 }, workspace.rootKey);
    expect(one.data.map((identity) => identity.id)).toEqual([sorted[0]]);
    expect(one.pagination.hasMore).toBe(true);
  });

  it('a walk visits every identity exactly once while identities are added between pages', async () => {
    const { workspace, ids } = await workspaceWith(7, 'walk');
    const added: string[] = [];
    const seen = await walk(workspace.rootKey, { limit: 2 }, async () => {
      added.push(await createTestIdentity(api, workspace.rootKey, { externalId: `added_${added.length}` }));
    });
    expect(new Set(seen).size).toBe(seen.length);
    // Added identities sort after every cursor handed out, so the walk reaches them too.
    expect(seen).toEqual([...ids, ...added]);
    expect(added.length).toBeGreaterThanOrEqual(3);
  });

  it('a walk skips nothing when identities are deleted between pages', async () => {
    const { workspace, ids } = await workspaceWith(6, 'shrinking');
    const seen = await walk(workspace.rootKey, { limit: 2 }, async () => {
      // Deletes an identity already listed: the rest of the walk is unaffected.
      const listed = ids.shift();
      if (listed) await api.post('identities.deleteIdentity', { identity: listed }, workspace.rootKey);
    });
    expect(new Set(seen).size).toBe(6);
  });

  describe('search', () => {
    let workspace: TestWorkspace;
    let ids: Record<string, string>;
    beforeAll(async () => {
      workspace = await api.workspace();
      ids = {};
      for (const externalId of ['Alice.Smith', 'alice-jones', 'bob_alice', 'carol', 'dave']) {
        ids[externalId] = await createTestIdentity(api, workspace.rootKey, { externalId });
      }
    });
    const found = async (body: Record<string, unknown>) =>
      (await list(body, workspace.rootKey)).data.map((identity) => identity.externalId).sort();

    it('matches a part of the externalId in any letter case', async () => {
      expect(await found({ search: 'ALICE' })).toEqual(['Alice.Smith', 'alice-jones', 'bob_alice']);
      expect(await found({ search: 'e.s' })).toEqual(['Alice.Smith']);
      expect(await found({ search: 'carol' })).toEqual(['carol']);
    });

    it('matches a part of the id in any letter case', async () => {
      const id = ids.dave ?? '';
      expect(await found({ search: id.slice(5, 15).toLowerCase() })).toEqual(['dave']);
      expect(await found({ search: id })).toEqual(['dave']);
    });

    it('treats % and _ literally', async () => {
      expect(await found({ search: '%' })).toEqual([]);
      expect(await found({ search: 'b_a' })).toEqual(['bob_alice']);
    });

    it('finds nothing for text no identity contains, and everything for an empty search', async () => {
      expect(await found({ search: 'zzz' })).toEqual([]);
      expect(await found({ search: '' })).toHaveLength(5);
    });

    it('pages through the matches only', async () => {
      const first = await list({ search: 'alice', limit: 2 }, workspace.rootKey);
      expect(first.data).toHaveLength(2);
      expect(first.pagination.hasMore).toBe(true);
      const second = await list({ search: 'alice', limit: 2, cursor: first.pagination.cursor }, workspace.rootKey);
      expect(second.data).toHaveLength(1);
      expect(second.pagination).toEqual({ hasMore: false });
      expect([...first.data, ...second.data].map((identity) => identity.externalId).sort()).toEqual([
        'Alice.Smith',
        'alice-jones',
        'bob_alice',
      ]);
    });

    it('accepts 256 characters', async () => {
      expect(await found({ search: 'a'.repeat(256) })).toEqual([]);
    });
  });
});

describe('400', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    ({ workspace } = await workspaceWith(3, 'bad'));
  });
  const expectInvalid = async (body: unknown, location: string, rootKey = workspace.rootKey) =>
    expectInvalidInput(await api.post('identities.listIdentities', body, rootKey), location);

  it.each([[0], [101], [1.5], ['10'], [null]])('limit %j', async (limit) => {
    await expectInvalid({ limit }, 'body.limit');
  });

  it('a search over 256 characters', async () => {
    await expectInvalid({ search: 'a'.repeat(257) }, 'body.search');
  });

  it.each([[''], ['garbage'], [Buffer.from('["x","y"]').toString('base64url')], [5]])('cursor %j', async (cursor) => {
    await expectInvalid({ cursor }, 'body.cursor');
  });

  it("another workspace's cursor", async () => {
    const other = await workspaceWith(3, 'foreign');
    const page = await list({ limit: 1 }, other.workspace.rootKey);
    expect(page.pagination.cursor).toEqual(expect.any(String));
    await expectInvalid({ limit: 1, cursor: page.pagination.cursor }, 'body.cursor');
  });

  it('unknown fields', async () => {
    await expectInvalid({ externalId: 'x' }, 'body.externalId');
  });
});

describe('403', () => {
  it('without any read_identity grant, naming the wildcard, whatever the page or the search would hold', async () => {
    const { workspace, ids } = await workspaceWith(2, 'none');
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    for (const search of [undefined, 'none', 'nothing-matches']) {
      const page = await list(search === undefined ? {} : { search }, rootKey);
      expect(page.status).toBe(403);
      expect(page.error.detail).toBe("Missing permission: 'identity.*.read_identity'.");
      expect(JSON.stringify(page)).not.toContain(ids[0]);
    }
  });
});

describe('cross-workspace isolation', () => {
  it("lists its own workspace's identities only, even when searching for another's", async () => {
    const mine = await workspaceWith(2, 'mine');
    const theirs = await workspaceWith(2, 'theirs');
    const page = await list({}, mine.workspace.rootKey);
    expect(page.data.map((identity) => identity.id)).toEqual(mine.ids);
    expect((await list({ search: 'theirs' }, mine.workspace.rootKey)).data).toEqual([]);
    expect((await list({ search: theirs.ids[0] ?? '' }, mine.workspace.rootKey)).data).toEqual([]);
  });
});
