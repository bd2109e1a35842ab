import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, itRejectsEach } from '../assertions.ts';
import { createNamespace, setTestOverride, useApiWithWorkspace } from '../fixtures.ts';
import { ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { deleteNamespace, expectNamespaceRefusals } from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();
let namespaceId: string;
const ids: Record<string, string> = {};

const setOverride = async (identifier: string, limit: number, duration = 60_000) => {
  ids[identifier] = await setTestOverride(api, workspace.rootKey, {
    namespace: 'lookups',
    identifier,
    limit,
    duration,
  });
};

beforeAll(async () => {
  namespaceId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'lookups');
  await setOverride('user_1', 7, 5000);
  await setOverride('user_*', 3);
  await setOverride('user_1_*', 4);
  await setOverride('*', 1);
});

const getOverride = (body: InputOf<'ratelimit.getOverride'>, rootKey = workspace.rootKey) =>
  api.call('ratelimit.getOverride', body, rootKey);

describe('200', () => {
  it('answers the exact override in the reference shape', async () => {
    const reply = await getOverride({ namespace: 'lookups', identifier: 'user_1' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ overrideId: ids.user_1, identifier: 'user_1', limit: 7, duration: 5000 });
  });

  it('answers the wildcard override that limiting would apply: the most specific matching pattern', async () => {
    expect((await getOverride({ namespace: 'lookups', identifier: 'user_2' })).body.data).toEqual({
      overrideId: ids['user_*'],
      identifier: 'user_*',
      limit: 3,
      duration: 60_000,
    });
    expect((await getOverride({ namespace: 'lookups', identifier: 'user_1_eu' })).body.data.identifier).toBe(
      'user_1_*',
    );
    expect((await getOverride({ namespace: 'lookups', identifier: 'someone' })).body.data.identifier).toBe('*');
  });

  it('agrees with the override ratelimit.limit applies', async () => {
    for (const identifier of ['user_1', 'user_9', 'user_1_x', 'other']) {
      const got = await getOverride({ namespace: 'lookups', identifier });
      const limited = await api.call(
        'ratelimit.limit',
        { namespace: 'lookups', identifier, limit: 100, duration: 1000, cost: 0 },
        workspace.rootKey,
      );
      expect(limited.body.data.overrideId).toBe(got.body.data.overrideId);
    }
  });

  it('takes the namespace by id', async () => {
    expect((await getOverride({ namespace: namespaceId, identifier: 'user_1' })).body.data.overrideId).toBe(ids.user_1);
  });
});

describe('400', () => {
  itRejectsEach(api, 'ratelimit.getOverride', () => workspace.rootKey, [
    [{ namespace: 'lookups' }, 'body.identifier'],
    [{ identifier: 'user_1' }, 'body.namespace'],
    [{ namespace: '', identifier: 'user_1' }, 'body.namespace'],
    [{ namespace: 'lookups', identifier: 'i'.repeat(513) }, 'body.identifier'],
    [{ namespace: 'lookups', identifier: 'user_1', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('without read_override, naming it (the contract never masks a 403 as a 404)', async () => {
    const namespace = { id: namespaceId, action: 'read_override', others: ['ratelimit.*.set_override'] };
    await expectNamespaceRefusals(workspace, namespace, (rootKey) =>
      getOverride({ namespace: 'lookups', identifier: 'user_1' }, rootKey),
    );
  });

  it('not with ratelimit.<namespaceId>.read_override or ratelimit.*.read_override', async () => {
    for (const grant of [`ratelimit.${namespaceId}.read_override`, 'ratelimit.*.read_override']) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      expect((await getOverride({ namespace: 'lookups', identifier: 'user_1' }, rootKey)).status).toBe(200);
    }
  });
});

describe('404', () => {
  it('when no override matches', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'sparse');
    await setTestOverride(api, workspace.rootKey, {
      namespace: 'sparse',
      identifier: 'only_*',
      limit: 1,
      duration: 1000,
    });
    const reply = await getOverride({ namespace: 'sparse', identifier: 'Only_1' });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/data/ratelimit_override_not_found`,
      detail: 'This override does not exist.',
    });
  });

  it('for a deleted override', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_override');
    const body = { namespace: 'deleted_override', identifier: 'gone' };
    await api.post('ratelimit.setOverride', { ...body, limit: 1, duration: 1000 }, workspace.rootKey);
    await api.post('ratelimit.deleteOverride', body, workspace.rootKey);
    expect((await getOverride(body)).status).toBe(404);
  });

  it.each([
    ['a missing namespace', 'no_such_namespace'],
    ['a deleted namespace', 'deleted_ns'],
  ])('for %s, which is not created', async (_, namespace) => {
    if (namespace === 'deleted_ns') {
      await createNamespace(api, workspace.workspaceId, workspace.rootKey, namespace);
      await deleteNamespace(api, workspace.rootKey, namespace);
    }
    expectProblem(
      await getOverride({ namespace, identifier: 'user_1' }),
      404,
      'service/data/ratelimit_namespace_not_found',
    );
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's namespace and overrides do not exist, by id or by name", async () => {
    const other = await api.workspace();
    for (const namespace of [namespaceId, 'lookups']) {
      expect((await getOverride({ namespace, identifier: 'user_1' }, other.rootKey)).status).toBe(404);
    }
  });
});
