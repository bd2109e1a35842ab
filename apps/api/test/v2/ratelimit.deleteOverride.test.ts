import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, itRejectsEach } from '../assertions.ts';
import { storedOverrides } from '../dbInspect.ts';
import { createNamespace, useApiWithWorkspace } from '../fixtures.ts';
import { ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { deleteNamespace, expectNamespaceRefusals } from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();
let namespaceId: string;

beforeAll(async () => {
  namespaceId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deletions');
});

const setOverride = async (identifier: string) => {
  const reply = await api.call(
    'ratelimit.setOverride',
    { namespace: 'deletions', identifier, limit: 1, duration: 1000 },
    workspace.rootKey,
  );
  if (reply.status !== 200) throw new Error(JSON.stringify(reply.body));
  return reply.body.data.overrideId;
};
const deleteOverride = (body: InputOf<'ratelimit.deleteOverride'>, rootKey = workspace.rootKey) =>
  api.call('ratelimit.deleteOverride', body, rootKey);
const liveIdentifiers = async () =>
  (await storedOverrides(api.em(), namespaceId)).filter((row) => !row.deleted).map((row) => row.identifier);

describe('200', () => {
  it('soft-deletes the override and answers {}', async () => {
    const id = await setOverride('to_delete');
    const reply = await deleteOverride({ namespace: 'deletions', identifier: 'to_delete' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect((await storedOverrides(api.em(), namespaceId)).filter((row) => row.id === id)).toMatchObject([
      { identifier: 'to_delete', deleted: true },
    ]);
  });

  it('matches the identifier exactly: a pattern deletes only itself, never what it matches', async () => {
    await setOverride('pat_*');
    await setOverride('pat_1');
    expect((await deleteOverride({ namespace: 'deletions', identifier: 'pat_*' })).status).toBe(200);
    expect(await liveIdentifiers()).toContain('pat_1');
    expect(await liveIdentifiers()).not.toContain('pat_*');
  });

  it('takes the namespace by id', async () => {
    await setOverride('by_id');
    expect((await deleteOverride({ namespace: namespaceId, identifier: 'by_id' })).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'ratelimit.deleteOverride', () => workspace.rootKey, [
    [{ namespace: 'deletions' }, 'body.identifier'],
    [{ identifier: 'x' }, 'body.namespace'],
    [{ namespace: 'deletions', identifier: '' }, 'body.identifier'],
    [{ namespace: 'deletions', identifier: 'x', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('without delete_override, naming it, deleting nothing', async () => {
    await setOverride('protected');
    const namespace = { id: namespaceId, action: 'delete_override', others: ['ratelimit.*.set_override'] };
    await expectNamespaceRefusals(workspace, namespace, (rootKey) =>
      deleteOverride({ namespace: 'deletions', identifier: 'protected' }, rootKey),
    );
    expect(await liveIdentifiers()).toContain('protected');
  });

  it('comes before the override lookup', async () => {
    const { rootKey } = await workspace.rootKeyWith([]);
    expect((await deleteOverride({ namespace: 'deletions', identifier: 'never_set' }, rootKey)).status).toBe(403);
  });

  it('not with ratelimit.<namespaceId>.delete_override', async () => {
    await setOverride('scoped_delete');
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${namespaceId}.delete_override`]);
    expect((await deleteOverride({ namespace: 'deletions', identifier: 'scoped_delete' }, rootKey)).status).toBe(200);
  });
});

describe('404', () => {
  it('for an identifier with no override, also one a pattern would match', async () => {
    await setOverride('wild_*');
    for (const identifier of ['never_set', 'wild_1']) {
      const reply = await deleteOverride({ namespace: 'deletions', identifier });
      expect(reply.status).toBe(404);
      expect(reply.body.error).toMatchObject({
        type: `${ERRORS_BASE_URL}/service/data/ratelimit_override_not_found`,
        detail: 'This override does not exist.',
      });
    }
    expect(await liveIdentifiers()).toContain('wild_*');
  });

  it('for an override already deleted', async () => {
    await setOverride('twice');
    expect((await deleteOverride({ namespace: 'deletions', identifier: 'twice' })).status).toBe(200);
    expect((await deleteOverride({ namespace: 'deletions', identifier: 'twice' })).status).toBe(404);
  });

  it('for a missing or deleted namespace', async () => {
    expect((await deleteOverride({ namespace: 'no_such_namespace', identifier: 'x' })).status).toBe(404);
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_ns');
    await api.post(
      'ratelimit.setOverride',
      { namespace: 'deleted_ns', identifier: 'x', limit: 1, duration: 1000 },
      workspace.rootKey,
    );
    await deleteNamespace(api, workspace.rootKey, 'deleted_ns');
    expectProblem(
      await deleteOverride({ namespace: 'deleted_ns', identifier: 'x' }),
      404,
      'service/data/ratelimit_namespace_not_found',
    );
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace cannot delete this workspace's overrides, by namespace id or name", async () => {
    await setOverride('mine');
    const other = await api.workspace();
    for (const namespace of [namespaceId, 'deletions']) {
      expect((await deleteOverride({ namespace, identifier: 'mine' }, other.rootKey)).status).toBe(404);
    }
    expect(await liveIdentifiers()).toContain('mine');
  });
});
