import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../assertions.ts';
import { createNamespace, useApiWithWorkspace } from '../fixtures.ts';
import { itRejectsPaging } from '../lists.ts';
import type { InputOf } from '../procedures.ts';
import { deleteNamespace, itNeedsNamespacePermission } from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();
let namespaceId: string;
/** The live overrides' ids in creation (= id) order. */
const created: string[] = [];
const TOTAL = 120;

const listOverrides = (body: InputOf<'ratelimit.listOverrides'>, rootKey = workspace.rootKey) =>
  api.call('ratelimit.listOverrides', body, rootKey);

beforeAll(async () => {
  namespaceId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'listed');
  for (let i = 0; i < TOTAL; i += 1) {
    const reply = await api.call(
      'ratelimit.setOverride',
      { namespace: 'listed', identifier: `user_${i}`, limit: i, duration: 1000 + i },
      workspace.rootKey,
    );
    created.push(reply.body.data.overrideId);
  }
  // A deleted one is never listed.
  await api.post('ratelimit.deleteOverride', { namespace: 'listed', identifier: 'user_7' }, workspace.rootKey);
  created.splice(7, 1);
});

describe('200', () => {
  it('answers 50 by default, in id order, in the list envelope', async () => {
    const reply = await listOverrides({ namespace: 'listed' });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'meta', 'pagination']);
    expect(reply.body.data).toHaveLength(50);
    expect(reply.body.data.map((override) => override.overrideId)).toEqual(created.slice(0, 50));
    expect(reply.body.data[1]).toEqual({ overrideId: created[1], identifier: 'user_1', limit: 1, duration: 1001 });
    expect(reply.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
  });

  it('walks every live override exactly once with the cursors', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const reply = await listOverrides({ namespace: namespaceId, limit: 40, ...(cursor ? { cursor } : {}) });
      expect(reply.status).toBe(200);
      seen.push(...reply.body.data.map((override) => override.overrideId));
      cursor = reply.body.pagination.cursor;
      if (!reply.body.pagination.hasMore) {
        expect(cursor).toBeUndefined();
        break;
      }
    }
    expect(seen).toEqual(created);
  });

  it('answers 100 at most per page, and an empty page for a namespace without overrides', async () => {
    expect((await listOverrides({ namespace: 'listed', limit: 100 })).body.data).toHaveLength(100);
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'empty');
    const empty = await listOverrides({ namespace: 'empty' });
    expect(empty.body.data).toEqual([]);
    expect(empty.body.pagination).toEqual({ hasMore: false });
  });
});

describe('400', () => {
  itRejectsPaging(api, 'ratelimit.listOverrides', () => workspace.rootKey, {
    base: { namespace: 'listed' },
    more: [
      [{}, 'body.namespace'],
      [{ namespace: 'listed', extra: 1 }, 'body.extra'],
    ],
  });

  it("rejects another workspace's cursor", async () => {
    const other = await api.workspace();
    await createNamespace(api, other.workspaceId, other.rootKey, 'listed');
    await api.post(
      'ratelimit.setOverride',
      { namespace: 'listed', identifier: 'a', limit: 1, duration: 1000 },
      other.rootKey,
    );
    const cursor = (await listOverrides({ namespace: 'listed', limit: 1 })).body.pagination.cursor;
    const reply = await listOverrides({ namespace: 'listed', cursor }, other.rootKey);
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors?.map((error) => error.location)).toEqual(['body.cursor']);
  });
});

describe('403', () => {
  itNeedsNamespacePermission(workspace, {
    namespaceId: () => namespaceId,
    action: 'read_override',
    others: ['ratelimit.*.set_override', 'ratelimit.*.list_overrides'],
    send: (rootKey) => listOverrides({ namespace: 'listed' }, rootKey),
  });
});

describe('404', () => {
  it('for a missing or deleted namespace', async () => {
    expectProblem(
      await listOverrides({ namespace: 'no_such_namespace' }),
      404,
      'service/data/ratelimit_namespace_not_found',
    );
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_ns');
    await deleteNamespace(api, workspace.rootKey, 'deleted_ns');
    expect((await listOverrides({ namespace: 'deleted_ns' })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's namespace does not exist, and its own same-named one lists only its overrides", async () => {
    const other = await api.workspace();
    expect((await listOverrides({ namespace: namespaceId }, other.rootKey)).status).toBe(404);
    await createNamespace(api, other.workspaceId, other.rootKey, 'listed');
    await api.post(
      'ratelimit.setOverride',
      { namespace: 'listed', identifier: 'theirs', limit: 1, duration: 1000 },
      other.rootKey,
    );
    const reply = await listOverrides({ namespace: 'listed' }, other.rootKey);
    expect(reply.body.data.map((override) => override.identifier)).toEqual(['theirs']);
  });
});
