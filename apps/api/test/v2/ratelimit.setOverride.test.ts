import { beforeAll, describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectInvalidInput, expectLimitExceeded } from '../assertions.ts';
import { countRows, storedNamespaces, storedOverrides } from '../dbInspect.ts';
import { createNamespace, useApiWithWorkspace } from '../fixtures.ts';
import { ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { deleteNamespace, itNeedsNamespacePermission } from '../ratelimit.ts';
import { startSecondNode } from '../secondNode.ts';

const { api, workspace } = useApiWithWorkspace();
let namespaceId: string;

beforeAll(async () => {
  namespaceId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'overrides');
});

const setOverride = (body: InputOf<'ratelimit.setOverride'>, rootKey = workspace.rootKey) =>
  api.call('ratelimit.setOverride', body, rootKey);
const override = (identifier: string, extra: Record<string, unknown> = {}) => ({
  namespace: 'overrides',
  identifier,
  limit: 5,
  duration: 60_000,
  ...extra,
});

describe('200', () => {
  it('stores the override and answers its id', async () => {
    const reply = await setOverride(override('user_1'));
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['overrideId']);
    expect(reply.body.data.overrideId).toMatch(/^rlor_[0-9a-f]{32}$/);
    const stored = (await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'user_1');
    expect(stored).toEqual([
      { id: reply.body.data.overrideId, identifier: 'user_1', limit: 5, duration_ms: '60000', deleted: false },
    ]);
  });

  it('is an upsert by identifier: the override keeps its id and takes the new values', async () => {
    const first = await setOverride(override('upserted'));
    const second = await setOverride(override('upserted', { limit: 0, duration: 2_592_000_000 }));
    expect(second.body.data.overrideId).toBe(first.body.data.overrideId);
    const stored = (await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'upserted');
    expect(stored).toEqual([
      { id: first.body.data.overrideId, identifier: 'upserted', limit: 0, duration_ms: '2592000000', deleted: false },
    ]);
  });

  it('after a deletion creates a new override with a new id', async () => {
    const first = await setOverride(override('recreated'));
    await api.post('ratelimit.deleteOverride', { namespace: 'overrides', identifier: 'recreated' }, workspace.rootKey);
    const second = await setOverride(override('recreated'));
    expect(second.body.data.overrideId).not.toBe(first.body.data.overrideId);
    const stored = (await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'recreated');
    expect(stored.map((row) => [row.id, row.deleted])).toEqual([
      [first.body.data.overrideId, true],
      [second.body.data.overrideId, false],
    ]);
  });

  it('takes the namespace by id, a wildcard pattern as its identifier, and limit 0', async () => {
    const reply = await setOverride({ ...override('team_*', { limit: 0 }), namespace: namespaceId });
    expect(reply.status).toBe(200);
  });

  it('keeps one override under many concurrent first settings, never a 500', async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => setOverride(override('raced', { limit: i }))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(12).fill(200));
    expect(new Set(replies.map((reply) => reply.body.data.overrideId)).size).toBe(1);
    expect((await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'raced')).toHaveLength(1);
  });

  it('holds for the next limit on another node', async () => {
    const second = await startSecondNode(api);
    try {
      const limit = { namespace: 'overrides', identifier: 'node_user', limit: 100, duration: 60_000 };
      const before = await second.call('ratelimit.limit', limit, workspace.rootKey);
      expect(before.body.data.limit).toBe(100);
      await setOverride(override('node_user', { limit: 3 }));
      const after = await second.call('ratelimit.limit', limit, workspace.rootKey);
      expect(after.body.data.limit).toBe(3);
    } finally {
      await second.stop();
    }
  });
});

describe('400', () => {
  it.each([
    ['namespace', ''],
    ['namespace', 'n'.repeat(513)],
    ['identifier', ''],
    ['identifier', 'i'.repeat(513)],
    ['identifier', 'nul\u0000'],
    ['limit', -1],
    ['limit', 1.5],
    ['limit', 2_147_483_648],
    ['duration', 999],
    ['duration', 2_592_000_001],
    ['extra', true],
  ])('rejects %s = %j, storing nothing', async (field, value) => {
    const before = await countRows(api.em(), 'ratelimit_overrides');
    expectInvalidInput(await setOverride({ ...override('invalid'), [field]: value }), `body.${field}`);
    expect(await countRows(api.em(), 'ratelimit_overrides')).toBe(before);
  });

  it.each(['namespace', 'identifier', 'limit', 'duration'])('requires %s', async (field) => {
    const body: Record<string, unknown> = override('invalid');
    delete body[field];
    expect((await api.post('ratelimit.setOverride', body, workspace.rootKey)).status).toBe(400);
  });
});

describe('403', () => {
  // The refusals come first: only the calls allowed after them store `by_grant`.
  itNeedsNamespacePermission(workspace, {
    namespaceId: () => namespaceId,
    action: 'set_override',
    others: ['ratelimit.*.limit', 'ratelimit.*.read_override'],
    send: (rootKey) => setOverride(override('by_grant'), rootKey),
    leaving: {
      title: 'storing nothing',
      unchanged: async () =>
        expect((await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'by_grant')).toEqual(
          [],
        ),
    },
  });
});

describe('404', () => {
  it('for a namespace that does not exist, which is not created', async () => {
    const reply = await setOverride({ ...override('x'), namespace: 'no_such_namespace' });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/data/ratelimit_namespace_not_found`,
      detail: 'This namespace does not exist.',
    });
    const names = (await storedNamespaces(api.em(), workspace.workspaceId)).map((namespace) => namespace.name);
    expect(names).not.toContain('no_such_namespace');
  });

  it('for a deleted namespace', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_for_override');
    await deleteNamespace(api, workspace.rootKey, 'deleted_for_override');
    const reply = await setOverride({ ...override('x'), namespace: 'deleted_for_override' });
    expect(reply.status).toBe(404);
  });
});

describe('412', () => {
  it("past the namespace's wildcard overrides (LIMIT_RATELIMIT_WILDCARD_OVERRIDES), storing nothing; exact ones still pass", async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'wildcard_bound');
    const variant = { limits: { ratelimitWildcardOverrides: 1 } };
    const set = (identifier: string) =>
      callOn(
        api,
        variant,
        'ratelimit.setOverride',
        { ...override(identifier), namespace: 'wildcard_bound' },
        workspace.rootKey,
      );
    expect((await set('user_*')).status).toBe(200);
    expectLimitExceeded(await set('team_*'), 'A namespace may hold at most 1 wildcard overrides');
    expect((await set('user_*')).status).toBe(200);
    expect((await set('user_1')).status).toBe(200);
    expect((await storedOverrides(api.em(), id)).map((row) => row.identifier).sort()).toEqual(['user_*', 'user_1']);
  });

  it("past the namespace's overrides (LIMIT_RATELIMIT_OVERRIDES), storing nothing; changing one still passes", async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'override_bound');
    const variant = { limits: { ratelimitOverrides: 2 } };
    const set = (identifier: string, limit = 5) =>
      callOn(
        api,
        variant,
        'ratelimit.setOverride',
        { ...override(identifier, { limit }), namespace: 'override_bound' },
        workspace.rootKey,
      );
    expect((await set('a')).status).toBe(200);
    expect((await set('b_*')).status).toBe(200);
    expectLimitExceeded(await set('c'), 'A namespace may hold at most 2 overrides');
    expect((await set('a', 9)).status).toBe(200);
    expect((await storedOverrides(api.em(), id)).map((row) => [row.identifier, row.limit])).toEqual([
      ['a', 9],
      ['b_*', 5],
    ]);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's namespace does not exist, by id or by name", async () => {
    const other = await api.workspace();
    for (const namespace of [namespaceId, 'overrides']) {
      const reply = await setOverride({ ...override('intruder'), namespace }, other.rootKey);
      expect(reply.status).toBe(404);
    }
    expect((await storedOverrides(api.em(), namespaceId)).filter((row) => row.identifier === 'intruder')).toEqual([]);
  });
});
