import {
  DEFAULT_CREDITS_LOW_THRESHOLD,
  DEFAULT_EXPIRING_NOTICE_MS,
  DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE,
} from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem } from '../assertions.ts';
import { invalidInputStoringNothing, itNeedsCreatePermission } from '../creates.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { auditEntries, countWebhookRows, HOOK_URL, storedEndpoint } from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const createEndpoint = (body: InputOf<'webhooks.createEndpoint'>, rootKey = workspace.rootKey) =>
  api.call('webhooks.createEndpoint', body, rootKey);

describe('200', () => {
  it('stores the endpoint with the defaults and answers its id and a signing secret', async () => {
    const reply = await createEndpoint({ url: HOOK_URL, eventTypes: ['key.credits.low', 'key.expiring'] });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['endpointId', 'secret']);
    const { endpointId, secret } = reply.body.data;
    expect(endpointId).toMatch(/^whep_[0-9a-f]{32}$/);
    // Standard Webhooks: `whsec_` and base64 of 24 random bytes.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await storedEndpoint(api.em(), endpointId)).toMatchObject({
      workspace_id: workspace.workspaceId,
      url: HOOK_URL,
      description: null,
      event_types: ['key.credits.low', 'key.expiring'],
      api_ids: null,
      secret,
      enabled: true,
      disabled_reason: null,
      credits_low_threshold: DEFAULT_CREDITS_LOW_THRESHOLD,
      credits_low_percent: null,
      expiring_notice_ms: String(DEFAULT_EXPIRING_NOTICE_MS),
    });
  });

  it('stores every setting given, each API and event type once', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const reply = await createEndpoint({
      url: 'http://hooks.example.com:8080/in?source=keyplane',
      eventTypes: ['*', 'key.deleted', 'key.deleted'],
      apiIds: [apiId, apiId],
      description: 'billing',
      enabled: false,
      creditsLow: { threshold: 0, percent: 25 },
      expiringNoticeMs: 86_400_000,
    });
    expect(reply.status).toBe(200);
    expect(await storedEndpoint(api.em(), reply.body.data.endpointId)).toMatchObject({
      url: 'http://hooks.example.com:8080/in?source=keyplane',
      event_types: ['*', 'key.deleted'],
      api_ids: [apiId],
      description: 'billing',
      enabled: false,
      credits_low_threshold: 0,
      credits_low_percent: 25,
      expiring_notice_ms: '86400000',
    });
  });

  it('takes a percentage of the refill amount alone as the low-credits threshold', async () => {
    const reply = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], creditsLow: { percent: 10 } });
    expect(await storedEndpoint(api.em(), reply.body.data.endpointId)).toMatchObject({
      credits_low_threshold: null,
      credits_low_percent: 10,
    });
  });

  it('gives each endpoint its own secret', async () => {
    const first = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] });
    const second = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] });
    expect(second.body.data.secret).not.toBe(first.body.data.secret);
  });

  it('records the change in the audit log by its id alone, never the secret', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const reply = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], description: 'audited' }, rootKey);
    const entries = await auditEntries(api.em(), workspaceId, 'webhooks.createEndpoint');
    expect(entries).toEqual([{ resources: { endpointId: reply.body.data.endpointId } }]);
    expect(JSON.stringify(entries)).not.toContain(reply.body.data.secret);
  });
});

describe('400', () => {
  const endpoints = () => countWebhookRows(api.em(), 'webhook_endpoints');
  const expectInvalid = invalidInputStoringNothing(api, workspace, 'webhooks.createEndpoint', endpoints);

  it.each([
    ['http://127.0.0.1:9/x'],
    ['http://169.254.169.254/'],
    ['http://localhost:3000/hook'],
    ['http://10.1.2.3/hook'],
    ['http://[::1]/hook'],
  ])('refuses the private target %s, saying why', async (url) => {
    const reply = await expectInvalid({ url, eventTypes: ['*'] }, 'body.url');
    expect(reply.body.error.detail).toMatch(/loopback, private or link-local.*WEBHOOKS_ALLOW_PRIVATE=true/);
  });

  it.each([
    ['not a URL', 'hooks.example.com/keyplane', /absolute URL/],
    ['another scheme', 'ftp://hooks.example.com/keyplane', /https or http/],
    ['credentials', 'https://user:secret@hooks.example.com/keyplane', /user name or password/],
  ])('refuses a url with %s', async (_, url, detail) => {
    const reply = await expectInvalid({ url, eventTypes: ['*'] }, 'body.url');
    expect(reply.body.error.detail).toMatch(detail);
  });

  it.each([
    ['url', { eventTypes: ['*'] }],
    ['url', { url: '', eventTypes: ['*'] }],
    ['url', { url: `https://hooks.example.com/${'x'.repeat(2048)}`, eventTypes: ['*'] }],
    ['eventTypes', { url: HOOK_URL }],
    ['eventTypes', { url: HOOK_URL, eventTypes: [] }],
    ['eventTypes[0]', { url: HOOK_URL, eventTypes: ['key.exploded'] }],
    ['apiIds', { url: HOOK_URL, eventTypes: ['*'], apiIds: [] }],
    ['apiIds[0]', { url: HOOK_URL, eventTypes: ['*'], apiIds: ['no spaces allowed'] }],
    ['description', { url: HOOK_URL, eventTypes: ['*'], description: 'd'.repeat(256) }],
    ['enabled', { url: HOOK_URL, eventTypes: ['*'], enabled: 'yes' }],
    ['creditsLow.threshold', { url: HOOK_URL, eventTypes: ['*'], creditsLow: { threshold: -1 } }],
    ['creditsLow.percent', { url: HOOK_URL, eventTypes: ['*'], creditsLow: { percent: 0 } }],
    ['creditsLow.percent', { url: HOOK_URL, eventTypes: ['*'], creditsLow: { percent: 101 } }],
    ['creditsLow.extra', { url: HOOK_URL, eventTypes: ['*'], creditsLow: { extra: 1 } }],
    ['expiringNoticeMs', { url: HOOK_URL, eventTypes: ['*'], expiringNoticeMs: 59_999 }],
    ['expiringNoticeMs', { url: HOOK_URL, eventTypes: ['*'], expiringNoticeMs: 1.5 }],
    ['secret', { url: HOOK_URL, eventTypes: ['*'], secret: 'whsec_mine' }],
  ])('rejects a bad %s, storing nothing', async (field, body) => {
    await expectInvalid(body, `body.${field}`);
  });
});

describe('403', () => {
  itNeedsCreatePermission(workspace, {
    permission: 'webhook.*.create_endpoint',
    grantSets: [
      [],
      ['webhook.*.read_endpoint', 'webhook.*.update_endpoint'],
      ['webhook.whep_something.create_endpoint'],
    ],
    create: (rootKey) => createEndpoint({ url: HOOK_URL, eventTypes: ['*'] }, rootKey),
    count: () => countWebhookRows(api.em(), 'webhook_endpoints'),
  });

  it('for an API named in apiIds without read_api on it, before any API is looked up, creating nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['webhook.*.create_endpoint', 'api.api_mine.read_api']);
    const before = await countWebhookRows(api.em(), 'webhook_endpoints');
    // An API that exists and one that does not: the same answer, naming each.
    expectMissingPermissions(
      await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], apiIds: [apiId, 'api_missing'] }, rootKey),
      `api.${apiId}.read_api`,
      'api.api_missing.read_api',
    );
    expect(await countWebhookRows(api.em(), 'webhook_endpoints')).toBe(before);
    const reader = await workspace.rootKeyWith(['webhook.*.create_endpoint', `api.${apiId}.read_api`]);
    expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], apiIds: [apiId] }, reader.rootKey)).status).toBe(
      200,
    );
  });

  it('not with webhook.*.create_endpoint alone (or its plural spelling)', async () => {
    for (const grant of ['webhook.*.create_endpoint', 'webhooks.*.create_endpoint']) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] }, rootKey)).status).toBe(200);
    }
  });
});

describe('404', () => {
  it('for an API the workspace does not have, naming it, storing nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const before = await countWebhookRows(api.em(), 'webhook_endpoints');
    const reply = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], apiIds: [apiId, 'api_missing'] });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/data/api_not_found`,
      detail: "The API 'api_missing' was not found.",
    });
    expect(await countWebhookRows(api.em(), 'webhook_endpoints')).toBe(before);
  });

  it('for a deleted API', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    expect((await api.call('apis.deleteApi', { apiId }, workspace.rootKey)).status).toBe(200);
    expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], apiIds: [apiId] })).status).toBe(404);
  });
});

describe('412', () => {
  it('once the workspace has as many endpoints as it may, however many are created at once', async () => {
    const full = await api.workspace();
    const limit = DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE;
    const replies = await Promise.all(
      Array.from({ length: limit + 10 }, () => createEndpoint({ url: HOOK_URL, eventTypes: ['*'] }, full.rootKey)),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(limit);
    const refused = replies.filter((reply) => reply.status !== 200);
    expect(refused).toHaveLength(10);
    for (const reply of refused) {
      expectProblem(reply, 412, 'service/application/precondition_failed');
      expect(reply.body.error.detail).toBe(
        `This workspace has ${limit} webhook endpoints, the most it may have: delete one before creating another.`,
      );
    }
    const stored = await rows(
      api.em(),
      sql<{ n: number }>`select count(*)::int as n from webhook_endpoints where workspace_id = ${full.workspaceId}`,
    );
    expect(stored[0]?.n).toBe(limit);

    // Deleting one makes room for one; another workspace is not bounded by this one's endpoints.
    const [first] = replies.filter((reply) => reply.status === 200);
    if (first?.status !== 200) throw new Error('no endpoint was created');
    await api.call('webhooks.deleteEndpoint', { endpointId: first.body.data.endpointId }, full.rootKey);
    expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] }, full.rootKey)).status).toBe(200);
    expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] }, full.rootKey)).status).toBe(412);
    expect((await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] })).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's API is not found, and the endpoint is not listed there", async () => {
    const other = await api.workspace();
    const theirApiId = await createTestApi(api, other.rootKey);
    const reply = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'], apiIds: [theirApiId] });
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe(`The API '${theirApiId}' was not found.`);

    const mine = await createEndpoint({ url: HOOK_URL, eventTypes: ['*'] });
    const listed = await api.call('webhooks.listEndpoints', {}, other.rootKey);
    expect(listed.body.data.map((endpoint) => endpoint.endpointId)).not.toContain(mine.body.data.endpointId);
  });
});
