import { Unkey } from '@unkey/api';
import {
  BadRequestErrorResponse,
  ForbiddenErrorResponse,
  GoneErrorResponse,
  NotFoundErrorResponse,
  UnauthorizedErrorResponse,
} from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { everyItem, expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.ratelimit.*` of @unkey/api against a Keyplane server (the @unkey/ratelimit package, which
// wraps these, is in ratelimitPackage.test.ts).

const keyplane = useKeyplane();
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

describe('200', () => {
  it('limit counts an identifier and refuses it past its limit, with success false', async () => {
    const request = { namespace: 'sdk.limit', identifier: 'user_1', limit: 2, duration: 60_000 };
    const first = await unkey.ratelimit.limit(request);
    expect(first.data).toMatchObject({ success: true, limit: 2, remaining: 1, reset: expect.any(Number) });
    await unkey.ratelimit.limit(request);
    const refused = await unkey.ratelimit.limit({ ...request, cost: 1 });
    expect(refused.data).toMatchObject({ success: false, remaining: 0 });
  });

  it('multiLimit checks several limits all-or-nothing', async () => {
    const { data } = await unkey.ratelimit.multiLimit([
      { namespace: 'sdk.multi', identifier: 'a', limit: 5, duration: 60_000 },
      { namespace: 'sdk.multi', identifier: 'b', limit: 1, duration: 60_000, cost: 2 },
    ]);
    expect(data.passed).toBe(false);
    expect(data.limits).toEqual([
      expect.objectContaining({ namespace: 'sdk.multi', identifier: 'a', passed: true, limit: 5 }),
      expect.objectContaining({ namespace: 'sdk.multi', identifier: 'b', passed: false, remaining: 0 }),
    ]);
  });

  it('setOverride, getOverride, listOverrides and deleteOverride', async () => {
    await unkey.ratelimit.limit({ namespace: 'sdk.overrides', identifier: 'x', limit: 1, duration: 1000 });
    const set = await unkey.ratelimit.setOverride({
      namespace: 'sdk.overrides',
      identifier: 'vip_*',
      limit: 100,
      duration: 60_000,
    });
    expect(set.data.overrideId).toEqual(expect.any(String));
    const got = await unkey.ratelimit.getOverride({ namespace: 'sdk.overrides', identifier: 'vip_*' });
    expect(got.data).toEqual({ overrideId: set.data.overrideId, identifier: 'vip_*', limit: 100, duration: 60_000 });

    const limited = await unkey.ratelimit.limit({
      namespace: 'sdk.overrides',
      identifier: 'vip_1',
      limit: 1,
      duration: 1000,
    });
    expect(limited.data).toMatchObject({ limit: 100, overrideId: set.data.overrideId });

    await unkey.ratelimit.setOverride({ namespace: 'sdk.overrides', identifier: 'other', limit: 1, duration: 1000 });
    const first = await unkey.ratelimit.listOverrides({ namespace: 'sdk.overrides', limit: 1 });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const listed = await everyItem(first);
    expect(listed.items.map((override) => override.identifier)).toEqual(['vip_*', 'other']);

    expect((await unkey.ratelimit.deleteOverride({ namespace: 'sdk.overrides', identifier: 'vip_*' })).data).toEqual(
      {},
    );
    await rejection(
      unkey.ratelimit.getOverride({ namespace: 'sdk.overrides', identifier: 'vip_*' }),
      NotFoundErrorResponse,
      404,
    );
  });
});

describe('400', () => {
  it('a duration under a second is a BadRequestErrorResponse naming the field', async () => {
    const error = await rejection(
      unkey.ratelimit.limit({ namespace: 'sdk.bad', identifier: 'x', limit: 1, duration: 10 }),
      BadRequestErrorResponse,
      400,
    );
    expect(error.error.errors).toEqual([expect.objectContaining({ location: 'body.duration' })]);
  });
});

describe('401', () => {
  it('an unknown root key is an UnauthorizedErrorResponse', async () => {
    const stranger = new Unkey({ serverURL: keyplane.url, rootKey: 'kproot_unknown' });
    await rejection(
      stranger.ratelimit.limit({ namespace: 'sdk.x', identifier: 'x', limit: 1, duration: 1000 }),
      UnauthorizedErrorResponse,
      401,
    );
  });
});

describe('403', () => {
  it('a root key without limit on the namespace is a ForbiddenErrorResponse naming it', async () => {
    const reader = await keyplane.unkeyWith(['ratelimit.*.read_override']);
    const error = await rejection(
      reader.ratelimit.limit({ namespace: 'sdk.denied', identifier: 'x', limit: 1, duration: 1000 }),
      ForbiddenErrorResponse,
      403,
    );
    expect(error.error.detail).toContain('ratelimit.*.create_namespace');
  });
});

describe('404', () => {
  it('overrides of a namespace that does not exist are a NotFoundErrorResponse', async () => {
    const error = await rejection(
      unkey.ratelimit.setOverride({ namespace: 'sdk.nowhere', identifier: 'x', limit: 1, duration: 1000 }),
      NotFoundErrorResponse,
      404,
    );
    expect(problemType(error)).toBe('service/data/ratelimit_namespace_not_found');
    await rejection(unkey.ratelimit.listOverrides({ namespace: 'sdk.nowhere' }), NotFoundErrorResponse, 404);
    await rejection(
      unkey.ratelimit.deleteOverride({ namespace: 'sdk.nowhere', identifier: 'x' }),
      NotFoundErrorResponse,
      404,
    );
  });
});

describe('410', () => {
  it('limiting on a deleted namespace is a GoneErrorResponse', async () => {
    const request = { namespace: 'sdk.deleted', identifier: 'x', limit: 1, duration: 1000 };
    await unkey.ratelimit.limit(request);
    expect((await keyplane.post('/trpc/ratelimit.deleteNamespace', { namespace: 'sdk.deleted' })).status).toBe(200);
    const error = await rejection(unkey.ratelimit.limit(request), GoneErrorResponse, 410);
    expect(problemType(error)).toBe('service/data/ratelimit_namespace_gone');
    await rejection(unkey.ratelimit.multiLimit([request]), GoneErrorResponse, 410);
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(
      limited.ratelimit.limit({ namespace: 'sdk.x', identifier: 'x', limit: 1, duration: 1000 }),
    );
  });
});
