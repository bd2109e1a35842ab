import { DEFAULT_EXPIRING_NOTICE_MS } from '@keyplane/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, walkList } from '../harness.ts';
import { createTestEndpoint, disableAsFailing, HOOK_URL } from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();
/** The workspace's endpoints in creation (= id) order. */
const created: string[] = [];
const secrets: string[] = [];

const listEndpoints = (rootKey = workspace.rootKey) => api.call('webhooks.listEndpoints', {}, rootKey);

beforeAll(async () => {
  const apiId = await createTestApi(api, workspace.rootKey);
  for (const body of [
    { eventTypes: ['*' as const] },
    { eventTypes: ['key.credits.low' as const], apiIds: [apiId], description: 'billing', creditsLow: { percent: 20 } },
    { eventTypes: ['key.deleted' as const], enabled: false },
  ]) {
    const { endpointId, secret } = await createTestEndpoint(api, workspace.rootKey, body);
    created.push(endpointId);
    secrets.push(secret);
  }
});

describe('200', () => {
  it('answers every endpoint of the workspace in creation order, with its settings and state', async () => {
    const reply = await listEndpoints();
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'meta', 'pagination']);
    expect(reply.body.pagination).toEqual({ hasMore: false });
    expect(reply.body.data.map((endpoint) => endpoint.endpointId)).toEqual(created);
    const [, second] = reply.body.data;
    expect(second).toEqual({
      endpointId: created[1],
      url: HOOK_URL,
      description: 'billing',
      eventTypes: ['key.credits.low'],
      apiIds: [expect.stringMatching(/^api_/)],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      creditsLow: { threshold: null, percent: 20 },
      expiringNoticeMs: DEFAULT_EXPIRING_NOTICE_MS,
      createdAt: expect.any(Number),
      updatedAt: null,
    });
    expect(reply.body.data[2]?.enabled).toBe(false);
  });

  it('answers a page at a time, every endpoint once across the pages, in creation order', async () => {
    const first = await api.call('webhooks.listEndpoints', { limit: 2 }, workspace.rootKey);
    expect(first.body.data.map((endpoint) => endpoint.endpointId)).toEqual(created.slice(0, 2));
    expect(first.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const walked = await walkList(api, 'webhooks.listEndpoints', workspace.rootKey, { limit: 1 });
    expect(walked.map((endpoint) => endpoint.endpointId)).toEqual(created);
  });

  it('pages through only the endpoints a root key with per-endpoint grants may read', async () => {
    const { rootKey } = await workspace.rootKeyWith([
      `webhook.${created[0]}.read_endpoint`,
      `webhook.${created[2]}.read_endpoint`,
    ]);
    const walked = await walkList(api, 'webhooks.listEndpoints', rootKey, { limit: 1 });
    expect(walked.map((endpoint) => endpoint.endpointId)).toEqual([created[0], created[2]]);
  });

  it('never answers a secret', async () => {
    const text = JSON.stringify((await listEndpoints()).body);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain('whsec_');
  });

  it('says why the service disabled an endpoint and since when it fails', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    await disableAsFailing(api.em(), endpointId, 'Disabled after failing for 5 days; the last attempt got: HTTP 503');
    const listed = (await listEndpoints()).body.data.find((endpoint) => endpoint.endpointId === endpointId);
    expect(listed).toMatchObject({
      enabled: false,
      disabledReason: 'Disabled after failing for 5 days; the last attempt got: HTTP 503',
      failingSince: expect.any(Number),
    });
    expect(listed?.failingSince).toBeLessThan(Date.now() - 5 * 24 * 3_600_000);
    await api.call('webhooks.deleteEndpoint', { endpointId }, workspace.rootKey);
  });

  it('answers an empty list for a workspace without endpoints', async () => {
    const other = await api.workspace();
    expect((await listEndpoints(other.rootKey)).body.data).toEqual([]);
  });
});

describe('400', () => {
  it('rejects unknown fields', async () => {
    expectInvalidInput(await api.post('webhooks.listEndpoints', { search: 'x' }, workspace.rootKey), 'body.search');
  });

  it.each([[0], [101], [1.5]])('rejects the limit %j', async (limit) => {
    expectInvalidInput(await api.post('webhooks.listEndpoints', { limit }, workspace.rootKey), 'body.limit');
  });

  it("rejects a cursor that is not one of ours, or is another workspace's", async () => {
    expectInvalidInput(await api.post('webhooks.listEndpoints', { cursor: 'bogus' }, workspace.rootKey), 'body.cursor');
    const other = await api.workspace();
    await createTestEndpoint(api, other.rootKey);
    await createTestEndpoint(api, other.rootKey);
    const theirs = await api.call('webhooks.listEndpoints', { limit: 1 }, other.rootKey);
    const cursor = theirs.body.pagination.cursor;
    expect(cursor).toEqual(expect.any(String));
    expectInvalidInput(await api.post('webhooks.listEndpoints', { cursor }, workspace.rootKey), 'body.cursor');
  });
});

describe('403', () => {
  it.each([[[]], [['webhook.*.create_endpoint', 'webhook.*.update_endpoint', 'api.*.read_api']]])(
    'with %j, naming webhook.*.read_endpoint',
    async (grants) => {
      const { rootKey } = await workspace.rootKeyWith(grants);
      expectMissingPermissions(await listEndpoints(rootKey), 'webhook.*.read_endpoint');
    },
  );

  it('not with webhook.<endpointId>.read_endpoint, which lists only the endpoints it names', async () => {
    const { rootKey } = await workspace.rootKeyWith([
      `webhook.${created[0]}.read_endpoint`,
      `webhook.${created[2]}.read_endpoint`,
      `webhook.${created[1]}.update_endpoint`,
    ]);
    const reply = await listEndpoints(rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((endpoint) => endpoint.endpointId)).toEqual([created[0], created[2]]);
  });
});

describe('cross-workspace isolation', () => {
  it("lists only the caller's own workspace's endpoints, even with a grant naming another's", async () => {
    const other = await api.workspace();
    const { endpointId: theirs } = await createTestEndpoint(api, other.rootKey);
    const mine = (await listEndpoints()).body.data.map((endpoint) => endpoint.endpointId);
    expect(mine).not.toContain(theirs);
    const { rootKey } = await workspace.rootKeyWith([`webhook.${theirs}.read_endpoint`]);
    expect((await listEndpoints(rootKey)).body.data).toEqual([]);
    expect((await listEndpoints(other.rootKey)).body.data.map((endpoint) => endpoint.endpointId)).toEqual([theirs]);
  });
});
