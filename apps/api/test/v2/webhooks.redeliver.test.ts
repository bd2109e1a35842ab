import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  auditEntries,
  callById,
  countWebhookRows,
  createTestEndpoint,
  disableAsFailing,
  storeFinishedDelivery,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const redeliver = callById(api, workspace, 'webhooks.redeliver');

const failedAttempt = { statusCode: 500, error: null, responseBody: 'boom', durationMs: 7 };

/** An endpoint (wanting only key.deleted, so the root keys the tests make announce nothing to it) with a failed delivery. */
async function failedDelivery(owner: { workspaceId: string; rootKey: string } = workspace) {
  const { endpointId } = await createTestEndpoint(api, owner.rootKey, { eventTypes: ['key.deleted'] });
  const stored = await storeFinishedDelivery(api.em(), { workspaceId: owner.workspaceId, endpointId }, 'failed', [
    failedAttempt,
  ]);
  return { endpointId, ...stored };
}

describe('200', () => {
  it('sends the same event to the same endpoint as a new delivery, leaving the old one in the log', async () => {
    const { endpointId, deliveryId, eventId, payload } = await failedDelivery();
    const reply = await redeliver(deliveryId);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['deliveryId']);
    const newId = reply.body.data.deliveryId;
    expect(newId).toMatch(/^whdl_[0-9a-f]{32}$/);
    expect(newId).not.toBe(deliveryId);
    const log = (await api.call('webhooks.listDeliveries', { endpointId }, workspace.rootKey)).body.data;
    expect(log.map((delivery) => delivery.deliveryId)).toEqual([newId, deliveryId]);
    expect(log[0]).toMatchObject({ eventId, payload, eventType: 'key.deleted', state: 'pending' });
    expect(log[1]).toMatchObject({ state: 'failed', attempts: [expect.objectContaining(failedAttempt)] });
  });

  it('redelivers a delivery that succeeded, too', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] });
    const { deliveryId } = await storeFinishedDelivery(
      api.em(),
      { workspaceId: workspace.workspaceId, endpointId },
      'succeeded',
      [{ statusCode: 200, error: null, responseBody: 'ok', durationMs: 2 }],
    );
    expect((await redeliver(deliveryId)).status).toBe(200);
  });

  it('records the change in the audit log by the new delivery id', async () => {
    const owner = await api.workspace();
    const { deliveryId } = await failedDelivery(owner);
    const reply = await redeliver(deliveryId, owner.rootKey);
    expect(await auditEntries(api.em(), owner.workspaceId, 'webhooks.redeliver')).toEqual([
      { resources: { deliveryId: reply.body.data.deliveryId } },
    ]);
  });
});

describe('400', () => {
  redeliver.itRejectsInput('', { deliveryId: 'whdl_x', endpointId: 'whep_x' });
});

describe('403', () => {
  it("without webhook.<endpointId>.update_endpoint for the delivery's endpoint or the wildcard, naming it", async () => {
    const { endpointId, deliveryId } = await failedDelivery();
    const before = await countWebhookRows(api.em(), 'webhook_deliveries');
    for (const grants of [[], ['webhook.*.read_endpoint'], ['webhook.whep_x.update_endpoint']]) {
      const { rootKey } = await workspace.rootKeyWith(grants);
      // The endpoint only to a root key that may read it: to others, the answer for a delivery that never was.
      const readable = grants.includes('webhook.*.read_endpoint');
      const reply = await redeliver(deliveryId, rootKey);
      expectMissingPermissions(reply, readable ? `webhook.${endpointId}.update_endpoint` : 'webhook.*.update_endpoint');
      if (!readable) expect((await redeliver('whdl_never_was', rootKey)).body.error).toEqual(reply.body.error);
    }
    expect(await countWebhookRows(api.em(), 'webhook_deliveries')).toBe(before);
  });

  it('not with either of them', async () => {
    const { endpointId, deliveryId } = await failedDelivery();
    for (const grant of [`webhook.${endpointId}.update_endpoint`, 'webhook.*.update_endpoint']) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      expect((await redeliver(deliveryId, rootKey)).status).toBe(200);
    }
  });
});

describe('404', () => {
  it('for a delivery the workspace does not have', async () => {
    const reply = await redeliver('whdl_missing');
    expectProblem(reply, 404, 'service/data/webhook_delivery_not_found');
    expect(reply.body.error.detail).toBe("The webhook delivery 'whdl_missing' was not found.");
  });

  it('for a delivery of a deleted endpoint', async () => {
    const { endpointId, deliveryId } = await failedDelivery();
    await api.call('webhooks.deleteEndpoint', { endpointId }, workspace.rootKey);
    expect((await redeliver(deliveryId)).status).toBe(404);
  });
});

describe('412', () => {
  it('for a delivery of a disabled endpoint, queueing nothing', async () => {
    const { endpointId, deliveryId } = await failedDelivery();
    await disableAsFailing(api.em(), endpointId, 'Disabled after failing for 5 days');
    const before = await countWebhookRows(api.em(), 'webhook_deliveries');
    const reply = await redeliver(deliveryId);
    expectProblem(reply, 412, 'service/application/precondition_failed');
    expect(reply.body.error.detail).toMatch(/is disabled: enable it with webhooks\.updateEndpoint/);
    expect(await countWebhookRows(api.em(), 'webhook_deliveries')).toBe(before);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's delivery is not found and not sent again, whatever the grants", async () => {
    const other = await api.workspace();
    const { endpointId, deliveryId } = await failedDelivery(other);
    const before = await countWebhookRows(api.em(), 'webhook_deliveries');
    expectProblem(await redeliver(deliveryId), 404, 'service/data/webhook_delivery_not_found');
    // To a root key of some endpoints, the 403 of a delivery that never was, as for any it may not touch.
    const { rootKey } = await workspace.rootKeyWith([`webhook.${endpointId}.update_endpoint`]);
    const intruded = await redeliver(deliveryId, rootKey);
    expect(intruded.body.error).toEqual((await redeliver('whdl_never_was', rootKey)).body.error);
    expectMissingPermissions(intruded, 'webhook.*.update_endpoint');
    expect(await countWebhookRows(api.em(), 'webhook_deliveries')).toBe(before);
  });
});
