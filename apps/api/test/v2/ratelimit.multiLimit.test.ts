import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectInvalidInput, expectLimitExceeded, expectMissingPermissions, expectProblem } from '../assertions.ts';
import { ratelimitEvents, ratelimitRowCount, storedNamespaces } from '../dbInspect.ts';
import { createNamespace, setTestOverride, useApiWithWorkspace } from '../fixtures.ts';
import type { InputOf } from '../procedures.ts';
import { deleteNamespace, type LimitBody, LONG_WINDOW, limitOn } from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();

const multiLimit = (body: InputOf<'ratelimit.multiLimit'>, rootKey = workspace.rootKey) =>
  api.call('ratelimit.multiLimit', body, rootKey);
const check = (namespace: string, extra: Partial<LimitBody> = {}): LimitBody => ({
  namespace,
  identifier: 'user_1',
  limit: 10,
  duration: LONG_WINDOW,
  ...extra,
});
const remainingOf = async (body: LimitBody, rootKey = workspace.rootKey) =>
  (await limitOn(api, { ...body, cost: 0 }, rootKey)).body.data.remaining;
const namespaceNamed = async (workspaceId: string, name: string) =>
  (await storedNamespaces(api.em(), workspaceId)).filter((namespace) => namespace.name === name);

describe('200', () => {
  it('answers every check in request order, each with its namespace as sent', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'multi_ordered');
    const vip = { namespace: 'multi_ordered', identifier: 'vip_*', limit: 100, duration: LONG_WINDOW };
    const overrideId = await setTestOverride(api, workspace.rootKey, vip);
    const reply = await multiLimit([
      check('multi_ordered', { identifier: 'vip_1', cost: 3 }),
      check(id, { identifier: 'user_a', limit: 5 }),
      check('multi_ordered_other', { identifier: 'user_a', limit: 2, cost: 0 }),
    ]);
    expect(reply.status).toBe(200);
    const reset = expect.any(Number);
    expect(reply.body.data).toEqual({
      passed: true,
      limits: [
        {
          namespace: 'multi_ordered',
          identifier: 'vip_1',
          limit: 100,
          remaining: 97,
          reset,
          passed: true,
          overrideId,
        },
        { namespace: id, identifier: 'user_a', limit: 5, remaining: 4, reset, passed: true },
        { namespace: 'multi_ordered_other', identifier: 'user_a', limit: 2, remaining: 2, reset, passed: true },
      ],
    });
    expect(await remainingOf(check('multi_ordered', { identifier: 'user_a', limit: 5 }))).toBe(4);
  });

  it('is all-or-nothing: one failing check fails the call and consumes nothing anywhere', async () => {
    const full = check('multi_atomic_full', { limit: 1 });
    expect((await limitOn(api, full, workspace.rootKey)).body.data.success).toBe(true);
    const open = check('multi_atomic_open', { limit: 5 });
    const reply = await multiLimit([{ ...open, cost: 2 }, full]);
    expect(reply.status).toBe(200);
    expect(reply.body.data.passed).toBe(false);
    // Each entry says whether it alone would pass; the passing one reports its units as unspent.
    expect(reply.body.data.limits.map((limit) => [limit.passed, limit.remaining])).toEqual([
      [true, 5],
      [false, 0],
    ]);
    expect(await remainingOf(open)).toBe(5);
    // Two checks of the passing counter both report what it had before the call.
    const twice = await multiLimit([{ ...open, cost: 2 }, { ...open, cost: 1 }, full]);
    expect(twice.body.data.limits.map((limit) => [limit.passed, limit.remaining])).toEqual([
      [true, 5],
      [true, 5],
      [false, 0],
    ]);
    // With the full one left out the other passes and is charged.
    expect((await multiLimit([{ ...open, cost: 2 }])).body.data.passed).toBe(true);
    expect(await remainingOf(open)).toBe(3);
  });

  it('counts two checks of one counter together, never more than the limit', async () => {
    const same = check('multi_same_counter', { limit: 1 });
    const twice = await multiLimit([same, same]);
    expect(twice.body.data.passed).toBe(false);
    expect(twice.body.data.limits.map((limit) => [limit.passed, limit.remaining])).toEqual([
      [false, 0],
      [false, 0],
    ]);
    expect(await remainingOf(same)).toBe(1);

    const roomy = check('multi_same_counter', { identifier: 'roomy', limit: 3 });
    const ok = await multiLimit([roomy, roomy]);
    expect(ok.body.data.passed).toBe(true);
    // As if made one after the other.
    expect(ok.body.data.limits.map((limit) => limit.remaining)).toEqual([2, 1]);
    expect((await multiLimit([roomy, roomy])).body.data.passed).toBe(false);
    expect(await remainingOf(roomy)).toBe(1);
  });

  it('blocks the whole call when one check hits a limit-0 override', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'multi_blocked');
    const banned = { namespace: 'multi_blocked', identifier: 'banned', limit: 0, duration: 1000 };
    await setTestOverride(api, workspace.rootKey, banned);
    const open = check('multi_blocked', { identifier: 'fine' });
    const reply = await multiLimit([open, check('multi_blocked', { identifier: 'banned', cost: 0 })]);
    expect(reply.status).toBe(200);
    expect(reply.body.data.passed).toBe(false);
    expect(reply.body.data.limits[1]).toMatchObject({ passed: false, limit: 0, remaining: 0 });
    expect(await remainingOf(open)).toBe(10);
  });

  it('creates every missing namespace once, also when named twice', async () => {
    const reply = await multiLimit([
      check('multi_new_a'),
      check('multi_new_b'),
      check('multi_new_a', { identifier: 'user_2' }),
    ]);
    expect(reply.body.data.passed).toBe(true);
    expect(await namespaceNamed(workspace.workspaceId, 'multi_new_a')).toHaveLength(1);
    expect(await namespaceNamed(workspace.workspaceId, 'multi_new_b')).toHaveLength(1);
  });

  it('never answers 500 to concurrent batches creating the same namespaces in opposite orders', async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        multiLimit(i % 2 === 0 ? [check('race_x'), check('race_y')] : [check('race_y'), check('race_x')]),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(12).fill(200));
    expect(await namespaceNamed(workspace.workspaceId, 'race_x')).toHaveLength(1);
    expect(await namespaceNamed(workspace.workspaceId, 'race_y')).toHaveLength(1);
    expect(replies.filter((reply) => reply.body.data.passed)).toHaveLength(10);
  });

  it('records one decision per entry, all failed when the call failed, in one row for the call', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'multi_events');
    const reply = await multiLimit([
      check('multi_events', { identifier: 'e1', limit: 5 }),
      check('multi_events', { identifier: 'e2', limit: 1, cost: 2 }),
      check('multi_events', { identifier: 'e3\t"\\é', limit: 3 }),
    ]);
    await api.services.ratelimitEvents.flush();
    const events = (await ratelimitEvents(api.em(), id)).filter((event) => event.identifier !== 'probe');
    expect(events.map((event) => [event.identifier, event.passed, event.limit, event.remaining])).toEqual([
      ['e1', false, 5, 5],
      ['e2', false, 1, 0],
      ['e3\t"\\é', false, 3, 3],
    ]);
    expect(new Set(events.map((event) => event.request_id))).toEqual(new Set([reply.body.meta.requestId]));
    expect(await ratelimitRowCount(api.em(), reply.body.meta.requestId)).toBe(1);
  });

  it('accepts 100 checks', async () => {
    const reply = await multiLimit(
      Array.from({ length: 100 }, (_, i) => check('multi_hundred', { identifier: `user_${i}` })),
    );
    expect(reply.body.data.limits).toHaveLength(100);
    expect(reply.body.data.limits[99]?.identifier).toBe('user_99');
  });
});

describe('400', () => {
  it.each([
    ['an empty array', [], 'body'],
    ['101 checks', Array.from({ length: 101 }, () => check('too_many')), 'body'],
    ['an object instead of an array', check('not_array'), 'body'],
    ['a bad entry', [check('bad_entry'), { ...check('bad_entry'), duration: 999 }], 'body[1].duration'],
    ['an unknown field', [{ ...check('bad_entry'), extra: 1 }], 'body[0].extra'],
    ['a missing identifier', [{ namespace: 'x', limit: 1, duration: 1000 }], 'body[0].identifier'],
  ])('rejects %s, creating nothing', async (_, body, location) => {
    const before = await storedNamespaces(api.em(), workspace.workspaceId);
    expectInvalidInput(await api.post('ratelimit.multiLimit', body, workspace.rootKey), location);
    expect(await storedNamespaces(api.em(), workspace.workspaceId)).toEqual(before);
  });
});

describe('403', () => {
  it('needs the limit permission for every namespace of the batch, naming the missing ones', async () => {
    const a = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'perm_a');
    const b = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'perm_b');
    const c = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'perm_c');
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${a}.limit`, 'ratelimit.*.read_namespace']);
    const batch = [check('perm_a'), check('perm_b'), check(c)];
    const reply = await multiLimit(batch, rootKey);
    expectMissingPermissions(reply, `ratelimit.${b}.limit`, `ratelimit.${c}.limit`);
    expect(await remainingOf(check('perm_a'))).toBe(10);
    // Namespaces it may not read are not named: the wildcards are, as for a namespace that does not exist.
    const blind = await workspace.rootKeyWith([`ratelimit.${a}.limit`]);
    const refused = await multiLimit(batch, blind.rootKey);
    expectMissingPermissions(refused, 'ratelimit.*.create_namespace', 'ratelimit.*.limit');
    expect(await remainingOf(check('perm_a'))).toBe(10);

    const scoped = await workspace.rootKeyWith([
      `ratelimit.${a}.limit`,
      `ratelimit.${b}.limit`,
      `ratelimit.${c}.limit`,
    ]);
    expect((await multiLimit(batch, scoped.rootKey)).body.data.passed).toBe(true);
    const wildcard = await workspace.rootKeyWith(['ratelimit.*.limit']);
    expect((await multiLimit(batch, wildcard.rootKey)).body.data.passed).toBe(true);
  });

  it('names the permission of a namespace called by its name and by its id once', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'perm_twice');
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.read_namespace']);
    const reply = await multiLimit([check('perm_twice'), check(id), check('perm_twice')], rootKey);
    expectMissingPermissions(reply, `ratelimit.${id}.limit`);
  });

  it('to create a missing namespace without ratelimit.*.create_namespace, creating none of them', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'perm_existing');
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.limit']);
    const reply = await multiLimit([check('perm_existing'), check('perm_new_1'), check('perm_new_2')], rootKey);
    expectMissingPermissions(reply, 'ratelimit.*.create_namespace');
    expect(await namespaceNamed(workspace.workspaceId, 'perm_new_1')).toEqual([]);
    expect(await remainingOf(check('perm_existing'))).toBe(10);
  });
});

describe('410', () => {
  it('for the whole call when any namespace is deleted, consuming and creating nothing', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'multi_gone');
    expect((await deleteNamespace(api, workspace.rootKey, 'multi_gone')).status).toBe(200);
    const live = check('multi_live');
    const reply = await multiLimit([live, check('multi_gone'), check('multi_never_created')]);
    expectProblem(reply, 410, 'service/data/ratelimit_namespace_gone');
    expect(reply.body.error.detail).toBe('This namespace has been deleted. Contact support to restore.');
    expect(await namespaceNamed(workspace.workspaceId, 'multi_never_created')).toEqual([]);
    expect(await remainingOf(live)).toBe(10);
  });
});

describe('412', () => {
  it("to create namespaces past the workspace's limit (LIMIT_RATELIMIT_NAMESPACES), creating and counting nothing", async () => {
    const bounded = await api.workspace();
    await createNamespace(api, bounded.workspaceId, bounded.rootKey, 'held');
    const batch = [check('held'), check('new_a'), check('new_b')];
    const refused = await callOn(
      api,
      { limits: { ratelimitNamespaces: 2 } },
      'ratelimit.multiLimit',
      batch,
      bounded.rootKey,
    );
    expectLimitExceeded(refused, 'A workspace may hold at most 2 rate-limit namespaces');
    expect((await storedNamespaces(api.em(), bounded.workspaceId)).map((namespace) => namespace.name)).toEqual([
      'held',
    ]);
    expect(await remainingOf(check('held'), bounded.rootKey)).toBe(10);
  });
});

describe('cross-workspace isolation', () => {
  it("a batch in another workspace neither sees nor charges this workspace's namespaces", async () => {
    const other = await api.workspace();
    const mine = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'multi_private');
    const mineCheck = check('multi_private', { limit: 1 });
    const theirs = await multiLimit([mineCheck, check(mine, { limit: 1 })], other.rootKey);
    expect(theirs.body.data.passed).toBe(true);
    expect(await remainingOf(mineCheck)).toBe(1);
    expect(await namespaceNamed(workspace.workspaceId, 'multi_private')).toEqual([
      { id: mine, name: 'multi_private', deleted: false },
    ]);
    expect(await namespaceNamed(other.workspaceId, 'multi_private')).toHaveLength(1);
  });
});
