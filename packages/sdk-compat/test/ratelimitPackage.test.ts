import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotFoundErrorResponse } from '@unkey/api/models/errors';
import { Overrides, Ratelimit } from '@unkey/ratelimit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useKeyplane } from './keyplane.ts';

// @unkey/ratelimit against a Keyplane server: `Ratelimit` (its own copy of @unkey/api underneath,
// pointed at `baseUrl`) and `Overrides`.

const keyplane = useKeyplane();

function ratelimit(config: Partial<ConstructorParameters<typeof Ratelimit>[0]> = {}) {
  return new Ratelimit({
    baseUrl: keyplane.url,
    rootKey: keyplane.rootKey,
    namespace: 'sdk.package',
    limit: 2,
    duration: '60s',
    ...config,
  });
}

describe('Ratelimit.limit', () => {
  it('counts an identifier in the configured namespace and refuses it past the limit', async () => {
    const limiter = ratelimit();
    expect(await limiter.limit('user_1')).toMatchObject({ success: true, limit: 2, remaining: 1 });
    expect(await limiter.limit('user_1')).toMatchObject({ success: true, remaining: 0 });
    const refused = await limiter.limit('user_1');
    expect(refused).toMatchObject({ success: false, remaining: 0 });
    expect(refused.reset).toBeGreaterThan(Date.now());
  });

  it('takes a cost and a per-call limit, and answers with the limit applied', async () => {
    const limiter = ratelimit();
    expect(await limiter.limit('user_2', { cost: 2 })).toMatchObject({ success: true, remaining: 0 });
    expect(await limiter.limit('user_3', { limit: { limit: 10, duration: 60_000 } })).toMatchObject({
      success: true,
      limit: 10,
      remaining: 9,
    });
  });

  it('remembers a refusal in its cache until the reset, without asking the server', async () => {
    const cache = new Map();
    const limiter = ratelimit({ limit: 1, cache });
    await limiter.limit('user_4');
    expect((await limiter.limit('user_4')).success).toBe(false);
    expect(cache.size).toBe(1);
    // A limiter whose server is gone still refuses from the cache.
    const offline = ratelimit({ limit: 1, cache, baseUrl: 'http://127.0.0.1:9' });
    expect((await offline.limit('user_4')).success).toBe(false);
  });

  it('applies an override set with Overrides to the identifiers it matches', async () => {
    const overrides = new Overrides({ baseUrl: keyplane.url, rootKey: keyplane.rootKey });
    await ratelimit().limit('warm_up');
    const { data } = await overrides.setOverride({
      namespace: 'sdk.package',
      identifier: 'partner_*',
      limit: 50,
      duration: 60_000,
    });
    expect(await ratelimit().limit('partner_1')).toMatchObject({
      success: true,
      limit: 50,
      overrideId: data.overrideId,
    });
    expect((await overrides.getOverride({ namespace: 'sdk.package', identifier: 'partner_*' })).data.limit).toBe(50);
    const listed = await overrides.listOverrides({ namespace: 'sdk.package' });
    expect(listed.data.map((override) => override.identifier)).toEqual(['partner_*']);
    await overrides.deleteOverride({ namespace: 'sdk.package', identifier: 'partner_*' });
    await expect(overrides.getOverride({ namespace: 'sdk.package', identifier: 'partner_*' })).rejects.toBeInstanceOf(
      Error,
    );
  });
});

describe('errors and timeouts', () => {
  // A server that takes connections and never answers: what a timeout guards against.
  let silent: Server;
  let silentUrl: string;
  beforeAll(async () => {
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('an error Keyplane answers reaches onError, whose answer is returned', async () => {
    const limiter = ratelimit({
      rootKey: 'kproot_unknown',
      onError: (error) => ({ success: true, limit: 0, remaining: 0, reset: 0, overrideId: error.message }),
    });
    const answer = await limiter.limit('user_5');
    expect(answer.success).toBe(true);
    expect(answer.overrideId).toContain('401');
  });

  it('without onError the SDK’s error is thrown', async () => {
    const limiter = ratelimit({ rootKey: 'kproot_unknown' });
    await expect(limiter.limit('user_6')).rejects.toMatchObject({ statusCode: 401 });
  });

  it('a server that does not answer in time gets the timeout’s fallback', async () => {
    const limiter = ratelimit({
      baseUrl: silentUrl,
      timeout: {
        ms: 100,
        fallback: (identifier) => ({ success: identifier === 'trusted', limit: 0, remaining: 0, reset: 0 }),
      },
    });
    expect((await limiter.limit('trusted')).success).toBe(true);
    expect((await limiter.limit('stranger')).success).toBe(false);
  });
});

describe('Overrides errors', () => {
  it('a namespace that does not exist is the SDK’s NotFoundErrorResponse', async () => {
    const overrides = new Overrides({ baseUrl: keyplane.url, rootKey: keyplane.rootKey });
    const failure = overrides.listOverrides({ namespace: 'sdk.nowhere' });
    await expect(failure).rejects.toMatchObject({ statusCode: 404, name: NotFoundErrorResponse.name });
  });
});
