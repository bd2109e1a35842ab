import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectInvalidInput, expectLimitExceeded, expectMissingPermissions } from '../assertions.ts';
import { ratelimitEvents, storedNamespaces } from '../dbInspect.ts';
import { createNamespace, useApiWithWorkspace } from '../fixtures.ts';
import { ERRORS_BASE_URL } from '../harness.ts';
import {
  clockedLimiter,
  deleteNamespace,
  type LimitBody,
  type LimitData,
  LONG_WINDOW,
  limiterWithoutRedis,
  limitOn,
} from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();

const limit = (body: unknown, rootKey = workspace.rootKey) => limitOn(api, body, rootKey);
const request = (namespace: string, extra: Partial<LimitBody> = {}): LimitBody => ({
  namespace,
  identifier: 'user_1',
  limit: 10,
  duration: LONG_WINDOW,
  ...extra,
});
const setOverride = async (namespace: string, identifier: string, overrideLimit: number, duration = LONG_WINDOW) => {
  const reply = await api.call(
    'ratelimit.setOverride',
    { namespace, identifier, limit: overrideLimit, duration },
    workspace.rootKey,
  );
  expect(reply.status).toBe(200);
  return reply.body.data.overrideId;
};
const namespaceNamed = async (workspaceId: string, name: string) =>
  (await storedNamespaces(api.em(), workspaceId)).filter((namespace) => namespace.name === name);

describe('200', () => {
  it('creates the namespace on first use and answers the check in the reference shape', async () => {
    const reply = await limit(request('first_use'));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ limit: 10, remaining: 9, reset: expect.any(Number), success: true });
    // The end of the clock-aligned window the request fell in.
    expect(reply.body.data.reset % LONG_WINDOW).toBe(0);
    expect(reply.body.data.reset).toBeGreaterThan(Date.now());
    expect(reply.body.data.reset).toBeLessThanOrEqual(Date.now() + LONG_WINDOW);
    expect(await namespaceNamed(workspace.workspaceId, 'first_use')).toEqual([
      { id: expect.stringMatching(/^rlns_[0-9a-f]{32}$/), name: 'first_use', deleted: false },
    ]);
  });

  it('allows exactly the limit, then denies with a 200 and success false', async () => {
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push((await limit(request('exact_limit', { limit: 3 }))).body.data);
    expect(answers.map((answer) => [answer.success, answer.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  it('while Redis is unreachable, denies every request with RATELIMIT_REDIS_FAILURE=closed and allows every one with open', async () => {
    const limitWithout = async (redisFailure: 'open' | 'closed') => {
      const rateLimiter = limiterWithoutRedis(redisFailure);
      const answers = [];
      for (let i = 0; i < 3; i += 1) {
        const reply = await callOn(
          api,
          { rateLimiter },
          'ratelimit.limit',
          request('unreachable', { limit: 2 }),
          workspace.rootKey,
        );
        expect(reply.status).toBe(200);
        answers.push(reply.body.data.success);
      }
      return answers;
    };
    expect(await limitWithout('closed')).toEqual([false, false, false]);
    expect(await limitWithout('open')).toEqual([true, true, true]);
  });

  it('counts the namespace named by its id and by its name as one', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'by_id_or_name');
    expect((await limit(request('by_id_or_name', { limit: 2 }))).body.data.success).toBe(true);
    expect((await limit(request(id, { limit: 2 }))).body.data.success).toBe(true);
    expect((await limit(request('by_id_or_name', { limit: 2 }))).body.data.success).toBe(false);
    expect(await namespaceNamed(workspace.workspaceId, id)).toEqual([]);
  });

  it('keeps identifiers, namespaces and durations apart', async () => {
    expect((await limit(request('apart_a', { limit: 1 }))).body.data.success).toBe(true);
    expect((await limit(request('apart_a', { limit: 1 }))).body.data.success).toBe(false);
    expect((await limit(request('apart_a', { limit: 1, identifier: 'user_2' }))).body.data.success).toBe(true);
    expect((await limit(request('apart_b', { limit: 1 }))).body.data.success).toBe(true);
    expect((await limit(request('apart_a', { limit: 1, duration: 60_000 }))).body.data.success).toBe(true);
  });

  it('with cost 0 checks without consuming, and a larger cost consumes that much', async () => {
    const check = await limit(request('costs', { limit: 5, cost: 0 }));
    expect(check.body.data).toMatchObject({ success: true, remaining: 5 });
    expect((await limit(request('costs', { limit: 5, cost: 0 }))).body.data.remaining).toBe(5);
    expect((await limit(request('costs', { limit: 5, cost: 4 }))).body.data).toMatchObject({
      success: true,
      remaining: 1,
    });
    // Denied, and it consumed nothing: the last unit is still there.
    expect((await limit(request('costs', { limit: 5, cost: 2 }))).body.data.success).toBe(false);
    expect((await limit(request('costs', { limit: 5, cost: 1 }))).body.data).toMatchObject({
      success: true,
      remaining: 0,
    });
  });

  it('takes the limit and duration of an exact override and names it', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'exact_override');
    const overrideId = await setOverride('exact_override', 'vip', 2, 60_000);
    const first = await limit(request('exact_override', { identifier: 'vip', limit: 100 }));
    expect(first.body.data).toMatchObject({ limit: 2, remaining: 1, success: true, overrideId });
    expect(first.body.data.reset % 60_000).toBe(0);
    expect(first.body.data.reset).toBeLessThanOrEqual(Date.now() + 60_000);
    await limit(request('exact_override', { identifier: 'vip', limit: 100 }));
    expect((await limit(request('exact_override', { identifier: 'vip', limit: 100 }))).body.data.success).toBe(false);
    // Other identifiers keep the request's limit and carry no overrideId.
    const other = await limit(request('exact_override', { identifier: 'regular', limit: 100 }));
    expect(other.body.data).toEqual({ limit: 100, remaining: 99, reset: expect.any(Number), success: true });
  });

  it('applies a matching wildcard override, and an exact one beats it', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'wildcards');
    const wildcardId = await setOverride('wildcards', 'tenant_*', 3);
    const exactId = await setOverride('wildcards', 'tenant_special', 7);
    const anyId = await setOverride('wildcards', '*', 1);
    const matched = await limit(request('wildcards', { identifier: 'tenant_42' }));
    expect(matched.body.data).toMatchObject({ limit: 3, overrideId: wildcardId });
    const exact = await limit(request('wildcards', { identifier: 'tenant_special' }));
    expect(exact.body.data).toMatchObject({ limit: 7, overrideId: exactId });
    // `*` is anchored and case-sensitive: `Tenant_1` is not `tenant_*`, so the catch-all applies.
    const other = await limit(request('wildcards', { identifier: 'Tenant_1' }));
    expect(other.body.data).toMatchObject({ limit: 1, overrideId: anyId });
  });

  it('applies an override change to the very next request, and its deletion too', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'changing');
    const overrideId = await setOverride('changing', 'user_1', 5);
    expect((await limit(request('changing'))).body.data).toMatchObject({ limit: 5, overrideId });
    expect(await setOverride('changing', 'user_1', 50)).toBe(overrideId);
    expect((await limit(request('changing'))).body.data).toMatchObject({ limit: 50, remaining: 48, overrideId });
    const deleted = await api.post(
      'ratelimit.deleteOverride',
      { namespace: 'changing', identifier: 'user_1' },
      workspace.rootKey,
    );
    expect(deleted.status).toBe(200);
    const after = await limit(request('changing'));
    expect(after.body.data).toEqual({ limit: 10, remaining: 7, reset: expect.any(Number), success: true });
  });

  it('blocks with an override of limit 0, even a cost-0 check, and never answers 500', async () => {
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'blocked');
    const overrideId = await setOverride('blocked', 'abuser', 0);
    for (const cost of [1, 0, 5]) {
      const reply = await limit(request('blocked', { identifier: 'abuser', cost }));
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ success: false, limit: 0, remaining: 0, overrideId });
    }
  });

  it('records one event per decision, with the outcome, the override and the request id', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'recorded');
    const overrideId = await setOverride('recorded', 'watched', 1);
    const replies = [
      await limit(request('recorded', { identifier: 'watched' })),
      await limit(request('recorded', { identifier: 'watched' })),
      await limit(request('recorded', { identifier: 'free', limit: 4, cost: 2 })),
    ];
    await api.services.ratelimitEvents.flush();
    const events = (await ratelimitEvents(api.em(), id)).filter((event) => event.identifier !== 'probe');
    expect(events).toEqual([
      {
        request_id: replies[0]?.body.meta.requestId,
        workspace_id: workspace.workspaceId,
        identifier: 'watched',
        passed: true,
        limit: 1,
        remaining: 0,
        override_id: overrideId,
        latency_ms: expect.any(Number),
      },
      expect.objectContaining({ request_id: replies[1]?.body.meta.requestId, passed: false, limit: 1 }),
      expect.objectContaining({ identifier: 'free', passed: true, limit: 4, remaining: 2, override_id: null }),
    ]);
    expect(events.every((event) => event.latency_ms >= 0)).toBe(true);
  });

  it('records nothing for a call sent with X-Unkey-Metrics: disabled, still limiting it', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'unrecorded');
    const quiet = (identifier: string) =>
      api.request<LimitData>('/v2/ratelimit.limit', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${workspace.rootKey}`,
          'X-Unkey-Metrics': 'Disabled',
        },
        body: JSON.stringify(request('unrecorded', { identifier, limit: 1 })),
      });
    expect((await quiet('hidden')).body.data.success).toBe(true);
    expect((await quiet('hidden')).body.data.success).toBe(false);
    await limit(request('unrecorded', { identifier: 'shown' }));
    await api.services.ratelimitEvents.flush();
    const events = (await ratelimitEvents(api.em(), id)).map((event) => event.identifier);
    expect(events.filter((identifier) => identifier !== 'probe')).toEqual(['shown']);
  });

  it('never answers 500 to many concurrent first uses of one namespace, and creates it once', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => limit(request('raced_first_use', { limit: 5 }))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    expect(replies.filter((reply) => reply.body.data.success)).toHaveLength(5);
    expect(await namespaceNamed(workspace.workspaceId, 'raced_first_use')).toHaveLength(1);
  });

  it('accepts the bounds of every field', async () => {
    const edges: LimitBody[] = [
      request('n'.repeat(512), { identifier: 'i'.repeat(512) }),
      request('bounds', { limit: 1, duration: 1000, cost: 0 }),
      request('bounds', { limit: 2_147_483_647, duration: 2_592_000_000, cost: 2_147_483_647 }),
      request('bounds', { identifier: 'any text: ü / * ? %' }),
    ];
    for (const body of edges) expect((await limit(body)).status).toBe(200);
  });
});

describe('200: window and cost semantics on a controlled clock', () => {
  const DURATION = 10_000;
  /** The start of a clock-aligned window. */
  const WINDOW = 1_800_000_000_000;
  let namespaceCounter = 0;
  const fresh = () => {
    namespaceCounter += 1;
    return request(`clocked_${namespaceCounter}`, { duration: DURATION });
  };

  it('lets 10 pass then fails, remaining counting down, reset at the end of the aligned window', async () => {
    const clock = clockedLimiter(WINDOW + 1234);
    const body = fresh();
    const answers = [];
    for (let i = 0; i < 11; i += 1) answers.push((await clock.limit(api, body, workspace.rootKey)).body.data);
    expect(answers.map((answer) => answer.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(answers.map((answer) => answer.success)).toEqual([...Array(10).fill(true), false]);
    expect(new Set(answers.map((answer) => answer.reset))).toEqual(new Set([WINDOW + DURATION]));
  });

  it('charges cost 3 then 7, and a rejected request consumes nothing and reports 0 remaining', async () => {
    const clock = clockedLimiter(WINDOW);
    const body = fresh();
    const call = (cost: number) => clock.limit(api, { ...body, cost }, workspace.rootKey);
    expect((await call(3)).body.data).toMatchObject({ success: true, remaining: 7 });
    expect((await call(8)).body.data).toMatchObject({ success: false, remaining: 0 });
    expect((await call(7)).body.data).toMatchObject({ success: true, remaining: 0 });
    expect((await call(1)).body.data).toMatchObject({ success: false, remaining: 0 });
  });

  it('with cost 0 reports without consuming, also when the limit is used up', async () => {
    const clock = clockedLimiter(WINDOW);
    const body = fresh();
    const call = (cost: number) => clock.limit(api, { ...body, cost }, workspace.rootKey);
    expect((await call(0)).body.data).toMatchObject({ success: true, remaining: 10 });
    expect((await call(4)).body.data.remaining).toBe(6);
    expect((await call(0)).body.data).toMatchObject({ success: true, remaining: 6 });
    expect((await call(6)).body.data.remaining).toBe(0);
    expect((await call(0)).body.data).toMatchObject({ success: true, remaining: 0 });
    expect((await call(1)).body.data.success).toBe(false);
  });

  it('weights the previous window by the share of it still in the sliding window: 50% at mid-window', async () => {
    const clock = clockedLimiter(WINDOW + 100);
    const body = fresh();
    for (let i = 0; i < 10; i += 1) await clock.limit(api, body, workspace.rootKey);
    // Just into the next window almost all of the previous count still weighs.
    clock.set(WINDOW + DURATION + 1);
    expect((await clock.limit(api, body, workspace.rootKey)).body.data).toMatchObject({
      success: false,
      reset: WINDOW + 2 * DURATION,
    });
    // Half-way through, 10 × 50% = 5 remain in the way: 5 more pass, the 6th does not.
    clock.set(WINDOW + DURATION + DURATION / 2);
    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push((await clock.limit(api, body, workspace.rootKey)).body.data);
    expect(answers.map((answer) => [answer.success, answer.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // Two windows later the old counts no longer weigh at all.
    clock.set(WINDOW + 3 * DURATION);
    expect((await clock.limit(api, body, workspace.rootKey)).body.data).toMatchObject({ success: true, remaining: 9 });
  });

  it("uses an override's duration for the window", async () => {
    const clock = clockedLimiter(WINDOW + 1);
    const body = fresh();
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, body.namespace);
    await setOverride(body.namespace, body.identifier, 2, 60_000);
    const reply = await clock.limit(api, body, workspace.rootKey);
    expect(reply.body.data).toMatchObject({ limit: 2, remaining: 1, reset: WINDOW + 60_000 - (WINDOW % 60_000) });
  });
});

describe('400', () => {
  const expectInvalid = async (body: unknown, location: string) => {
    const before = await storedNamespaces(api.em(), workspace.workspaceId);
    expectInvalidInput(await limit(body), location);
    expect(await storedNamespaces(api.em(), workspace.workspaceId)).toEqual(before);
  };

  it.each(['namespace', 'identifier', 'limit', 'duration'])('requires %s', async (field) => {
    const body: Record<string, unknown> = { ...request('invalid') };
    delete body[field];
    await expectInvalid(body, `body.${field}`);
  });

  it.each([
    ['namespace', ''],
    ['namespace', 'n'.repeat(513)],
    ['namespace', 42],
    ['namespace', 'nul\u0000'],
    ['identifier', ''],
    ['identifier', 'i'.repeat(513)],
    ['identifier', null],
    ['identifier', 'nul\u0000'],
    ['limit', 0],
    ['limit', -1],
    ['limit', 1.5],
    ['limit', 2_147_483_648],
    ['limit', '10'],
    ['duration', 999],
    ['duration', 2_592_000_001],
    ['duration', 1000.5],
    ['cost', -1],
    ['cost', 0.5],
    ['cost', 2_147_483_648],
    ['cost', 1e300],
    ['cost', null],
  ])('rejects %s = %j', async (field, value) => {
    await expectInvalid({ ...request('invalid'), [field]: value }, `body.${field}`);
  });

  it('rejects unknown fields (the reference v1 `async` among them)', async () => {
    await expectInvalid({ ...request('invalid'), async: true }, 'body.async');
  });

  it('rejects an array: that is multiLimit', async () => {
    const reply = await limit([request('invalid')]);
    expect(reply.status).toBe(400);
  });
});

describe('401', () => {
  it('with an unknown root key, creating nothing', async () => {
    expect((await limit(request('bad_auth'), 'kproot_unknown')).status).toBe(401);
    expect(await namespaceNamed(workspace.workspaceId, 'bad_auth')).toEqual([]);
  });
});

describe('403', () => {
  it('without a limit permission on an existing namespace, naming its id when it may read it, and consumes nothing', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'guarded');
    for (const grants of [
      [`ratelimit.${id}.read_namespace`],
      ['ratelimit.*.read_namespace', 'ratelimit.rlns_x.limit'],
    ]) {
      const { rootKey } = await workspace.rootKeyWith(grants);
      const reply = await limit(request('guarded', { limit: 1 }), rootKey);
      expectMissingPermissions(reply, `ratelimit.${id}.limit`);
    }
    expect((await limit(request('guarded', { limit: 1 }))).body.data.success).toBe(true);
  });

  it('for a namespace it may neither limit on nor read as for one that never was, naming the wildcards', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'out_of_reach');
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'gone_too');
    expect((await deleteNamespace(api, workspace.rootKey, 'gone_too')).status).toBe(200);
    for (const [grants, missing] of [
      [[], ['ratelimit.*.create_namespace', 'ratelimit.*.limit']],
      [['ratelimit.*.create_namespace', 'ratelimit.*.set_override'], ['ratelimit.*.limit']],
      [['ratelimit.rlns_x.limit'], ['ratelimit.*.create_namespace', 'ratelimit.*.limit']],
    ] as const) {
      const { rootKey } = await workspace.rootKeyWith([...grants]);
      const answers = await Promise.all(
        ['out_of_reach', id, 'gone_too', 'never_was'].map((name) => limit(request(name, { limit: 1 }), rootKey)),
      );
      for (const reply of answers) expectMissingPermissions(reply, ...missing);
    }
    expect(await namespaceNamed(workspace.workspaceId, 'never_was')).toEqual([]);
    expect((await limit(request('out_of_reach', { limit: 1 }))).body.data.success).toBe(true);
  });

  it('not with ratelimit.<namespaceId>.limit or ratelimit.*.limit', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'granted');
    for (const grant of [`ratelimit.${id}.limit`, 'ratelimit.*.limit']) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      expect((await limit(request('granted'), rootKey)).status).toBe(200);
    }
  });

  it('to create a namespace without ratelimit.*.create_namespace, creating nothing', async () => {
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.limit']);
    const reply = await limit(request('needs_create'), rootKey);
    expectMissingPermissions(reply, 'ratelimit.*.create_namespace');
    expect(await namespaceNamed(workspace.workspaceId, 'needs_create')).toEqual([]);
  });

  it('to create a namespace without ratelimit.*.limit (no grant can name a new id), creating nothing', async () => {
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.create_namespace', 'ratelimit.rlns_x.limit']);
    const reply = await limit(request('needs_limit'), rootKey);
    expectMissingPermissions(reply, 'ratelimit.*.limit');
    expect(await namespaceNamed(workspace.workspaceId, 'needs_limit')).toEqual([]);
  });

  it('creates the namespace with both wildcards', async () => {
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.create_namespace', 'ratelimit.*.limit']);
    expect((await limit(request('created_by_scoped_key'), rootKey)).status).toBe(200);
    expect(await namespaceNamed(workspace.workspaceId, 'created_by_scoped_key')).toHaveLength(1);
  });
});

describe('410', () => {
  it('for a deleted namespace, by name or id, with the reference detail, recreating nothing', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_ns');
    expect((await deleteNamespace(api, workspace.rootKey, 'deleted_ns')).status).toBe(200);
    for (const namespace of ['deleted_ns', id]) {
      const reply = await limit(request(namespace));
      expect(reply.status).toBe(410);
      expect(reply.body.error).toEqual({
        title: 'Resource Gone',
        status: 410,
        type: `${ERRORS_BASE_URL}/service/data/ratelimit_namespace_gone`,
        detail: 'This namespace has been deleted. Contact support to restore.',
      });
    }
    expect(await namespaceNamed(workspace.workspaceId, 'deleted_ns')).toEqual([
      { id, name: 'deleted_ns', deleted: true },
    ]);
    await api.services.ratelimitEvents.flush();
    expect((await ratelimitEvents(api.em(), id)).map((event) => event.identifier)).toEqual(['probe']);
  });
});

describe('412', () => {
  it("to create a namespace past the workspace's limit (LIMIT_RATELIMIT_NAMESPACES), creating and counting nothing", async () => {
    const bounded = await api.workspace();
    const variant = { limits: { ratelimitNamespaces: 1 } };
    expect((await callOn(api, variant, 'ratelimit.limit', request('first'), bounded.rootKey)).status).toBe(200);
    const refused = await callOn(api, variant, 'ratelimit.limit', request('second'), bounded.rootKey);
    expectLimitExceeded(refused, 'A workspace may hold at most 1 rate-limit namespaces');
    expect((await storedNamespaces(api.em(), bounded.workspaceId)).map((namespace) => namespace.name)).toEqual([
      'first',
    ]);
    // An existing namespace is limited as before.
    expect((await callOn(api, variant, 'ratelimit.limit', request('first'), bounded.rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it('the same name in two workspaces is two namespaces with their own counters and overrides', async () => {
    const other = await api.workspace();
    const mineId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'shared_name');
    await setOverride('shared_name', 'user_1', 1);
    expect((await limit(request('shared_name'))).body.data).toMatchObject({ success: true, limit: 1 });
    expect((await limit(request('shared_name'))).body.data.success).toBe(false);

    const theirs = await limit(request('shared_name'), other.rootKey);
    expect(theirs.body.data).toEqual({ limit: 10, remaining: 9, reset: expect.any(Number), success: true });
    const [theirNamespace] = await namespaceNamed(other.workspaceId, 'shared_name');
    expect(theirNamespace?.id).not.toBe(mineId);
  });

  it("another workspace's namespace id is just an unknown name there: it never reaches this namespace", async () => {
    const other = await api.workspace();
    const mineId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'private_ns');
    expect((await limit(request('private_ns', { limit: 1 }))).body.data.success).toBe(true);
    const theirs = await limit(request(mineId, { limit: 1 }), other.rootKey);
    expect(theirs.body.data.success).toBe(true);
    expect(await namespaceNamed(other.workspaceId, mineId)).toHaveLength(1);
    expect(await namespaceNamed(workspace.workspaceId, 'private_ns')).toEqual([
      { id: mineId, name: 'private_ns', deleted: false },
    ]);
    // Deleted here: still a 410 only here.
    expect((await deleteNamespace(api, workspace.rootKey, mineId)).status).toBe(200);
    expect((await limit(request(mineId), other.rootKey)).status).toBe(200);
  });
});
