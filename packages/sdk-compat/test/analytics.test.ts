import { Unkey } from '@unkey/api';
import { BadRequestErrorResponse, ForbiddenErrorResponse, UnauthorizedErrorResponse } from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.analytics.getVerifications` and `getRatelimits` of @unkey/api against a Keyplane server
// (the deploy platform's getGatewayRequests and getRuntimeLogs are in outOfScope.test.ts).

const keyplane = useKeyplane();
/** How long the tests wait for events to reach PostgreSQL (flushed every second; longer on a loaded machine). */
const ANALYTICS_WRITTEN = { timeout: 10_000 };
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

describe('200', () => {
  it('getVerifications answers rows of the verifications made', async () => {
    const { apiId } = (await unkey.apis.createApi({ name: 'sdk-analytics' })).data;
    const { key } = (await unkey.keys.createKey({ apiId })).data;
    await unkey.keys.verifyKey({ key });
    await unkey.keys.verifyKey({ key });
    await expect
      .poll(async () => {
        const { data } = await unkey.analytics.getVerifications({
          query: `SELECT outcome, count(*) AS total FROM key_verifications_v1 WHERE key_space_id = '${apiId}' GROUP BY outcome`,
        });
        return data;
      }, ANALYTICS_WRITTEN)
      .toEqual([{ outcome: 'VALID', total: 2 }]);
  });

  it('getRatelimits answers rows of the limits checked', async () => {
    await unkey.ratelimit.limit({ namespace: 'sdk.analytics', identifier: 'x', limit: 1, duration: 60_000 });
    await expect
      .poll(async () => {
        const { data } = await unkey.analytics.getRatelimits({
          query: "SELECT identifier, passed FROM ratelimits_v1 WHERE identifier = 'x'",
        });
        return data;
      }, ANALYTICS_WRITTEN)
      .toEqual([{ identifier: 'x', passed: true }]);
  });
});

describe('400', () => {
  it('a query on a table that is not offered is a BadRequestErrorResponse of its own type', async () => {
    const error = await rejection(
      unkey.analytics.getVerifications({ query: 'SELECT * FROM pg_catalog.pg_tables' }),
      BadRequestErrorResponse,
      400,
    );
    expect(problemType(error)).toBe('user/bad_request/invalid_analytics_table');
  });
});

describe('401', () => {
  it('an unknown root key is an UnauthorizedErrorResponse', async () => {
    const stranger = new Unkey({ serverURL: keyplane.url, rootKey: 'kproot_unknown' });
    await rejection(stranger.analytics.getRatelimits({ query: 'SELECT 1' }), UnauthorizedErrorResponse, 401);
  });
});

describe('403', () => {
  it('a root key without read_analytics is a ForbiddenErrorResponse naming it', async () => {
    const other = await keyplane.unkeyWith(['api.*.read_api']);
    const error = await rejection(
      other.analytics.getVerifications({ query: 'SELECT count(*) FROM key_verifications_v1' }),
      ForbiddenErrorResponse,
      403,
    );
    expect(error.error.detail).toContain('api.*.read_analytics');
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(limited.analytics.getVerifications({ query: 'SELECT 1' }));
  });
});
