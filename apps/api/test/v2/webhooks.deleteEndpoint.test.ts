import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  createTestEndpoint,
  endpointProcedure,
  expectEndpointNotFound,
  sendTestEvent,
  storedEndpoint,
  storedTestDeliveries,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const deleteEndpoint = endpointProcedure(api, workspace, 'webhooks.deleteEndpoint', async ({ endpointId }) =>
  expect(await storedEndpoint(api.em(), endpointId)).toBeDefined(),
);

describe('200', () => {
  it('deletes the endpoint with its deliveries and answers data {}', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    const { endpointId: keptId } = await createTestEndpoint(api, workspace.rootKey);
    await sendTestEvent(api, api.em(), workspace.rootKey, endpointId);
    await sendTestEvent(api, api.em(), workspace.rootKey, keptId);
    const reply = await deleteEndpoint(endpointId);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await storedEndpoint(api.em(), endpointId)).toBeUndefined();
    expect(await storedTestDeliveries(api.em(), endpointId)).toEqual([]);
    expect(await storedTestDeliveries(api.em(), keptId)).toHaveLength(1);
    const listed = (await api.call('webhooks.listEndpoints', {}, workspace.rootKey)).body.data;
    expect(listed.map((endpoint) => endpoint.endpointId)).toEqual([keptId]);
  });

  deleteEndpoint.itAuditsByEndpointId();
});

describe('400', () => {
  deleteEndpoint.itRejectsInput('', { endpointId: 'whep_x', extra: 1 });
});

describe('403', () => {
  deleteEndpoint.itNeedsPermission('deleting nothing', ['webhook.*.update_endpoint', 'webhook.*.read_endpoint']);
});

describe('404', () => {
  it('for an endpoint the workspace does not have, or one deleted already', async () => {
    expectEndpointNotFound(await deleteEndpoint('whep_missing'), 'whep_missing');
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    expect((await deleteEndpoint(endpointId)).status).toBe(200);
    expect((await deleteEndpoint(endpointId)).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  deleteEndpoint.itHidesOtherWorkspaces('stays');
});
