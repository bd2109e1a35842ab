import { DEFAULT_CREDITS_LOW_THRESHOLD } from '@keyplane/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, expectProblem } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import {
  auditEntries,
  createTestEndpoint,
  disableAsFailing,
  expectEndpointNotFound,
  HOOK_URL,
  itNeedsEndpointPermission,
  storedEndpoint,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();
let apiId: string;

beforeAll(async () => {
  apiId = await createTestApi(api, workspace.rootKey);
});

const updateEndpoint = (body: InputOf<'webhooks.updateEndpoint'>, rootKey = workspace.rootKey) =>
  api.call('webhooks.updateEndpoint', body, rootKey);

describe('200', () => {
  it('changes what it names, keeps the rest and the secret, and answers the endpoint', async () => {
    const { endpointId, secret } = await createTestEndpoint(api, workspace.rootKey, {
      eventTypes: ['key.created'],
      description: 'before',
      expiringNoticeMs: 3_600_000,
    });
    const reply = await updateEndpoint({
      endpointId,
      url: 'https://other.example.com/in',
      eventTypes: ['key.expired', 'key.expiring'],
      apiIds: [apiId],
      creditsLow: { threshold: 5, percent: 50 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      endpointId,
      url: 'https://other.example.com/in',
      description: 'before',
      eventTypes: ['key.expired', 'key.expiring'],
      apiIds: [apiId],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      creditsLow: { threshold: 5, percent: 50 },
      expiringNoticeMs: 3_600_000,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(await storedEndpoint(api.em(), endpointId)).toMatchObject({ secret, url: 'https://other.example.com/in' });
  });

  it('clears the description and the filter by API with null', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey, { apiIds: [apiId], description: 'd' });
    const reply = await updateEndpoint({ endpointId, apiIds: null, description: null });
    expect(reply.body.data).toMatchObject({ apiIds: null, description: null });
  });

  it('replaces both thresholds: one naming neither takes the default', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey, {
      creditsLow: { threshold: 3, percent: 7 },
    });
    expect((await updateEndpoint({ endpointId, creditsLow: { percent: 15 } })).body.data.creditsLow).toEqual({
      threshold: null,
      percent: 15,
    });
    expect((await updateEndpoint({ endpointId, creditsLow: {} })).body.data.creditsLow).toEqual({
      threshold: DEFAULT_CREDITS_LOW_THRESHOLD,
      percent: null,
    });
  });

  it('disables an endpoint and enables it again', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    expect((await updateEndpoint({ endpointId, enabled: false })).body.data.enabled).toBe(false);
    expect((await storedEndpoint(api.em(), endpointId))?.enabled).toBe(false);
    expect((await updateEndpoint({ endpointId, enabled: true })).body.data.enabled).toBe(true);
  });

  it('enabling an endpoint the service disabled clears why and its failure streak', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    await disableAsFailing(api.em(), endpointId, 'Disabled after failing for 5 days');
    const untouched = await updateEndpoint({ endpointId, description: 'still failing' });
    expect(untouched.body.data).toMatchObject({
      enabled: false,
      disabledReason: 'Disabled after failing for 5 days',
      failingSince: expect.any(Number),
    });
    const enabled = await updateEndpoint({ endpointId, enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('records the change in the audit log by the endpoint id', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { endpointId } = await createTestEndpoint(api, rootKey);
    await updateEndpoint({ endpointId, description: 'audited' }, rootKey);
    expect(await auditEntries(api.em(), workspaceId, 'webhooks.updateEndpoint')).toEqual([
      { resources: { endpointId } },
    ]);
  });
});

describe('400', () => {
  let endpointId: string;
  beforeAll(async () => {
    ({ endpointId } = await createTestEndpoint(api, workspace.rootKey));
  });

  it('requires endpointId', async () => {
    expectInvalidInput(
      await api.post('webhooks.updateEndpoint', { enabled: false }, workspace.rootKey),
      'body.endpointId',
    );
  });

  it.each([['http://127.0.0.1:9/x'], ['http://169.254.169.254/'], ['ftp://hooks.example.com/']])(
    'refuses the target %s, leaving the endpoint as it was',
    async (url) => {
      expectInvalidInput(await updateEndpoint({ endpointId, url }), 'body.url');
      expect((await storedEndpoint(api.em(), endpointId))?.url).toBe(HOOK_URL);
    },
  );

  it.each([
    ['endpointId', { endpointId: 'has space' }],
    ['eventTypes', { eventTypes: [] }],
    ['eventTypes[0]', { eventTypes: ['key.exploded'] }],
    ['apiIds', { apiIds: [] }],
    ['description', { description: '' }],
    ['enabled', { enabled: null }],
    ['creditsLow.percent', { creditsLow: { percent: 101 } }],
    ['expiringNoticeMs', { expiringNoticeMs: 366 * 24 * 3_600_000 }],
    ['secret', { secret: 'whsec_mine' }],
  ])('rejects a bad %s', async (field, body) => {
    expectInvalidInput(
      await api.post('webhooks.updateEndpoint', { endpointId, ...body }, workspace.rootKey),
      `body.${field}`,
    );
  });
});

describe('403', () => {
  itNeedsEndpointPermission(api, workspace, {
    action: 'update_endpoint',
    others: ['webhook.*.read_endpoint', 'webhook.*.create_endpoint'],
    leaving: 'changing nothing',
    call: (endpointId, rootKey) => updateEndpoint({ endpointId, enabled: false }, rootKey),
    unchanged: async ({ endpointId }) => expect((await storedEndpoint(api.em(), endpointId))?.enabled).toBe(true),
  });

  it('for an API named in apiIds without read_api on it, before it is looked up, changing nothing', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith([`webhook.${endpointId}.update_endpoint`]);
    expectMissingPermissions(
      await updateEndpoint({ endpointId, apiIds: ['api_missing'] }, rootKey),
      'api.api_missing.read_api',
    );
    expect((await storedEndpoint(api.em(), endpointId))?.api_ids).toBeNull();
  });

  it('comes before the lookup: an unknown endpoint is a 403 without the permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['webhook.whep_known.update_endpoint']);
    expectMissingPermissions(
      await updateEndpoint({ endpointId: 'whep_unknown', enabled: false }, rootKey),
      'webhook.whep_unknown.update_endpoint',
    );
  });
});

describe('404', () => {
  it('for an endpoint the workspace does not have', async () => {
    expectEndpointNotFound(await updateEndpoint({ endpointId: 'whep_missing', enabled: false }), 'whep_missing');
  });

  it('for a deleted endpoint', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    await api.call('webhooks.deleteEndpoint', { endpointId }, workspace.rootKey);
    expect((await updateEndpoint({ endpointId, enabled: false })).status).toBe(404);
  });

  it('for an API the workspace does not have, naming it, changing nothing', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    const reply = await updateEndpoint({ endpointId, apiIds: [apiId, 'api_missing'], description: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/data/api_not_found`,
      detail: "The API 'api_missing' was not found.",
    });
    expect(await storedEndpoint(api.em(), endpointId)).toMatchObject({ api_ids: null, description: null });
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's endpoint is not found and stays as it was, whatever the grants", async () => {
    const other = await api.workspace();
    const { endpointId } = await createTestEndpoint(api, other.rootKey);
    expectProblem(await updateEndpoint({ endpointId, enabled: false }), 404, 'service/data/webhook_endpoint_not_found');
    const { rootKey } = await workspace.rootKeyWith([`webhook.${endpointId}.update_endpoint`]);
    expect((await updateEndpoint({ endpointId, enabled: false }, rootKey)).status).toBe(404);
    expect((await storedEndpoint(api.em(), endpointId))?.enabled).toBe(true);
  });
});
