import { describe, expect, it } from 'vitest';
import { expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  auditEntries,
  callById,
  countWebhookRows,
  createTestEndpoint,
  expectEndpointNotFound,
  itNeedsEndpointPermission,
  sendTestEvent,
  storedEndpoint,
  storedTestDeliveries,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const deleteEndpoint = callById(api, workspace, 'webhooks.deleteEndpoint');

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

  it('records the change in the audit log by the endpoint id', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { endpointId } = await createTestEndpoint(api, rootKey);
    await deleteEndpoint(endpointId, rootKey);
    expect(await auditEntries(api.em(), workspaceId, 'webhooks.deleteEndpoint')).toEqual([
      { resources: { endpointId } },
    ]);
  });
});

describe('400', () => {
  itRejectsEach(api, 'webhooks.deleteEndpoint', () => workspace.rootKey, [
    [{}, 'body.endpointId'],
    [{ endpointId: '' }, 'body.endpointId'],
    [{ endpointId: 'whep_x', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  itNeedsEndpointPermission(api, workspace, {
    action: 'delete_endpoint',
    others: ['webhook.*.update_endpoint', 'webhook.*.read_endpoint'],
    leaving: 'deleting nothing',
    call: deleteEndpoint,
    unchanged: async ({ endpointId }) => expect(await storedEndpoint(api.em(), endpointId)).toBeDefined(),
  });
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
  it("another workspace's endpoint is not found and stays, whatever the grants", async () => {
    const other = await api.workspace();
    const { endpointId } = await createTestEndpoint(api, other.rootKey);
    const before = await countWebhookRows(api.em(), 'webhook_endpoints');
    expectProblem(await deleteEndpoint(endpointId), 404, 'service/data/webhook_endpoint_not_found');
    const { rootKey } = await workspace.rootKeyWith([`webhook.${endpointId}.delete_endpoint`]);
    expect((await deleteEndpoint(endpointId, rootKey)).status).toBe(404);
    expect(await countWebhookRows(api.em(), 'webhook_endpoints')).toBe(before);
    expect(await storedEndpoint(api.em(), endpointId)).toBeDefined();
  });
});
