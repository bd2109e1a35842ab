import { createChangeLog } from '@keyplane/caches';
import { setWorkspaceApiRateLimit } from '@keyplane/db';
import { createQuotas, type Quota } from '@keyplane/ratelimit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { postOn } from '../appVariants.ts';
import { ERRORS_BASE_URL, type Reply, type TestWorkspace, useApi } from '../harness.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';
import { UNREACHABLE_REDIS } from '../ratelimit.ts';

// The reference's workspace API rate limit: applied after authentication to every request of the
// workspace's root keys, only when the workspace has one (set with `keyplane rate-limit set`).
const api = useApi();

/** A new workspace whose root keys may make `requestsPerMinute` requests a minute. */
async function limitedWorkspace(requestsPerMinute: number | null): Promise<TestWorkspace> {
  const workspace = await api.workspace();
  await setWorkspaceApiRateLimit(api.em(), createChangeLog(), workspace.workspaceId, requestsPerMinute);
  return workspace;
}

const listApis = (workspace: TestWorkspace) => api.post('apis.listKeys', { apiId: 'api_missing' }, workspace.rootKey);
const createApi = (workspace: TestWorkspace, name = 'limited') =>
  api.call('apis.createApi', { name }, workspace.rootKey);

function rateLimitHeaders(reply: Pick<Reply, 'headers'>) {
  return {
    limit: reply.headers.get('RateLimit-Limit'),
    remaining: reply.headers.get('RateLimit-Remaining'),
    reset: reply.headers.get('RateLimit-Reset'),
    retryAfter: reply.headers.get('Retry-After'),
  };
}

function expectWorkspaceRateLimited(reply: Reply) {
  expect(reply.status).toBe(429);
  // As the reference's schema declares its 429s: the SDKs generated from it type them only so.
  expect(reply.headers.get('content-type')).toBe('application/problem+json');
  expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/user/too_many_requests/workspace_rate_limited`);
  expect(reply.body.error.title).toBe('Too Many Requests');
  const headers = rateLimitHeaders(reply);
  expect(headers.remaining).toBe('0');
  // The window slides: a retry may have to wait into the next minute, while the previous one weighs.
  expect(Number(headers.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(headers.retryAfter)).toBeLessThanOrEqual(120);
  expect(reply.body.error.detail).toContain(`Try again in ${headers.retryAfter} s.`);
}

describe('200', () => {
  it('carries no RateLimit headers when the workspace has no limit', async () => {
    const workspace = await limitedWorkspace(null);
    const reply = await createApi(workspace);
    expect(reply.status).toBe(200);
    expect(rateLimitHeaders(reply)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });
  });

  it('shows the limit, what is left of it and when it resets on every answer, errors included', async () => {
    const workspace = await limitedWorkspace(5);
    const first = await createApi(workspace);
    expect(first.status).toBe(200);
    expect(rateLimitHeaders(first)).toMatchObject({ limit: '5', remaining: '4', retryAfter: null });
    expect(Number(first.headers.get('RateLimit-Reset'))).toBeGreaterThanOrEqual(1);
    expect(Number(first.headers.get('RateLimit-Reset'))).toBeLessThanOrEqual(60);

    const notFound = await listApis(workspace);
    expect(notFound.status).toBe(404);
    expect(rateLimitHeaders(notFound)).toMatchObject({ limit: '5', remaining: '3' });
  });

  it('counts verifications too, and shows the limit on their answers', async () => {
    const workspace = await limitedWorkspace(3);
    const verified = await api.post('keys.verifyKey', { key: 'sk_not_a_key' }, workspace.rootKey);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect(rateLimitHeaders(verified)).toMatchObject({ limit: '3', remaining: '2' });
  });

  it('lets requests through without headers when the limiter fails (fails open)', async () => {
    const workspace = await limitedWorkspace(1);
    const broken: Quota = {
      consume: () => Promise.reject(new Error('the limiter failed')),
      peek: () => Promise.reject(new Error('the limiter failed')),
      refund: () => Promise.reject(new Error('the limiter failed')),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const reply = await postOn(
        api,
        { workspaceRateLimit: broken },
        'apis.createApi',
        { name: 'open' },
        workspace.rootKey,
      );
      expect(reply.status).toBe(200);
      expect(reply.headers.get('RateLimit-Limit')).toBeNull();
    }
  });
});

describe('429', () => {
  it('holds a dashboard session to the limit too, counted with the root keys of its workspace', async () => {
    const workspace = await limitedWorkspace(5);
    const session = await signIn(api, workspace.rootKey);
    expect((await createApi(workspace)).status).toBe(200);
    const answers = [];
    for (let attempt = 0; attempt < 6; attempt++)
      answers.push(await callInternal(api, 'apis.listApis', {}, { session }));
    expect(answers.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers[3]?.headers.get('RateLimit-Remaining')).toBe('0');
    expect(answers[4]?.error?.data.type).toBe('user/too_many_requests/workspace_rate_limited');
    expect(Number(answers[4]?.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // The root key has nothing left either: one count for the workspace, whichever way it calls.
    expectWorkspaceRateLimited(await createApi(workspace, 'after'));
  });

  it('refuses the request past the limit, with Retry-After, and does nothing it asked for', async () => {
    const workspace = await limitedWorkspace(2);
    expect((await createApi(workspace, 'one')).status).toBe(200);
    expect((await createApi(workspace, 'two')).status).toBe(200);

    const refused = await createApi(workspace, 'three');
    expectWorkspaceRateLimited(refused);
    expect(rateLimitHeaders(refused).limit).toBe('2');
    expect(refused.body.error.detail).toContain('2 API requests per minute');

    await setWorkspaceApiRateLimit(api.em(), createChangeLog(), workspace.workspaceId, null);
    await api.services.announcementsDelivered();
    const listed = await callProcedure(
      api,
      'apis.listApis',
      {},
      {
        rootKey: workspace.rootKey,
      },
    );
    expect(listed.data.data.map((created) => created.name).sort()).toEqual(['one', 'two']);
  });

  it('is counted in this process while Redis is unreachable, whatever RATELIMIT_REDIS_FAILURE says', async () => {
    const quotas = createQuotas({ redisUrl: UNREACHABLE_REDIS });
    onTestFinished(() => quotas.close());
    const workspaceRateLimit = quotas.quota('workspace-api', 60);
    const workspace = await limitedWorkspace(2);
    const create = (name: string) => postOn(api, { workspaceRateLimit }, 'apis.createApi', { name }, workspace.rootKey);
    expect((await create('one')).status).toBe(200);
    expect((await create('two')).status).toBe(200);
    expectWorkspaceRateLimited(await create('three'));
  });

  it('refuses every request of a workspace whose limit is 0', async () => {
    const workspace = await limitedWorkspace(0);
    const refused = await api.post('keys.verifyKey', { key: 'sk_not_a_key' }, workspace.rootKey);
    expectWorkspaceRateLimited(refused);
    expect(rateLimitHeaders(refused).limit).toBe('0');
    expect(refused.body.error.detail).toContain('no API requests');
  });

  it('authenticates first: a bad root key is 401, not 429, and spends nothing', async () => {
    const workspace = await limitedWorkspace(1);
    const unauthenticated = await api.post('apis.createApi', { name: 'x' }, 'kproot_not_a_key');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('RateLimit-Limit')).toBeNull();
    expect((await createApi(workspace)).status).toBe(200);
  });

  it('takes a new limit at once, on a node that had cached the root key', async () => {
    const workspace = await limitedWorkspace(null);
    expect((await createApi(workspace)).status).toBe(200);

    await setWorkspaceApiRateLimit(api.em(), createChangeLog(), workspace.workspaceId, 0);
    await api.services.announcementsDelivered();
    expectWorkspaceRateLimited(await createApi(workspace));

    await setWorkspaceApiRateLimit(api.em(), createChangeLog(), workspace.workspaceId, null);
    await api.services.announcementsDelivered();
    expect((await createApi(workspace)).status).toBe(200);
  });

  it('holds at /trpc too, with the same headers', async () => {
    const workspace = await limitedWorkspace(1);
    const first = await callInternal(api, 'apis.listApis', {}, { rootKey: workspace.rootKey });
    expect(first.status).toBe(200);
    expect(first.headers.get('RateLimit-Remaining')).toBe('0');

    const refused = await callInternal(api, 'apis.listApis', {}, { rootKey: workspace.rootKey });
    expect(refused.status).toBe(429);
    expect(refused.error?.data.type).toBe('user/too_many_requests/workspace_rate_limited');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
  });
});

describe('cross-workspace isolation', () => {
  it("one workspace spending its limit leaves another's untouched", async () => {
    const exhausted = await limitedWorkspace(1);
    const other = await limitedWorkspace(1);
    expect((await createApi(exhausted)).status).toBe(200);
    expectWorkspaceRateLimited(await createApi(exhausted));

    const reply = await createApi(other);
    expect(reply.status).toBe(200);
    expect(rateLimitHeaders(reply)).toMatchObject({ limit: '1', remaining: '0' });
  });
});
