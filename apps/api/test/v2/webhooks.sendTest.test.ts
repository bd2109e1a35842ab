import { describe, expect, it } from 'vitest';
import { expectProblem } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  countWebhookRows,
  createTestEndpoint,
  disableAsFailing,
  endpointProcedure,
  expectEndpointNotFound,
  storedTestDeliveries,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const sendTest = endpointProcedure(api, workspace, 'webhooks.sendTest', async ({ endpointId }) =>
  expect(await storedTestDeliveries(api.em(), endpointId)).toEqual([]),
);

describe('200', () => {
  it('queues a webhook.test event for that endpoint alone, whatever types it wants, and answers data {}', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['key.deleted'] });
    const { endpointId: bystanderId } = await createTestEndpoint(api, workspace.rootKey, { eventTypes: ['*'] });
    const reply = await sendTest(endpointId);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    const [delivery, ...others] = await storedTestDeliveries(api.em(), endpointId);
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({
      id: expect.stringMatching(/^whdl_[0-9a-f]{32}$/),
      event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      workspace_id: workspace.workspaceId,
      type: 'webhook.test',
      payload: {
        type: 'webhook.test',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { endpointId, message: 'This is a test event from Keyplane.' },
      },
    });
    expect(await storedTestDeliveries(api.em(), bystanderId)).toEqual([]);
  });

  it('shows in the delivery log at once', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    await sendTest(endpointId);
    const log = await api.call('webhooks.listDeliveries', { endpointId }, workspace.rootKey);
    expect(log.body.data).toEqual([
      expect.objectContaining({
        endpointId,
        eventType: 'webhook.test',
        state: expect.stringMatching(/^(pending|failed)$/),
      }),
    ]);
  });

  it('queues one event per call', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
    await sendTest(endpointId);
    await sendTest(endpointId);
    const deliveries = await storedTestDeliveries(api.em(), endpointId);
    expect(new Set(deliveries.map((delivery) => delivery.event_id)).size).toBe(2);
  });

  sendTest.itAuditsByEndpointId();
});

describe('400', () => {
  sendTest.itRejectsInput('x', { endpointId: 'whep_x', type: 'key.created' });
});

describe('403', () => {
  sendTest.itNeedsPermission('queueing nothing', ['webhook.*.read_endpoint', 'webhook.*.create_endpoint']);
});

describe('404', () => {
  it('for an endpoint the workspace does not have, writing no event', async () => {
    const before = await countWebhookRows(api.em(), 'webhook_events');
    expectEndpointNotFound(await sendTest('whep_missing'), 'whep_missing');
    expect(await countWebhookRows(api.em(), 'webhook_events')).toBe(before);
  });
});

describe('412', () => {
  it('for a disabled endpoint, by its operator or by the service, saying how to enable it', async () => {
    const { endpointId } = await createTestEndpoint(api, workspace.rootKey, { enabled: false });
    const reply = await sendTest(endpointId);
    expectProblem(reply, 412, 'service/application/precondition_failed');
    expect(reply.body.error.detail).toBe(
      `The webhook endpoint '${endpointId}' is disabled: enable it with webhooks.updateEndpoint before sending it events.`,
    );
    const { endpointId: failingId } = await createTestEndpoint(api, workspace.rootKey);
    await disableAsFailing(api.em(), failingId, 'Disabled after failing for 5 days');
    expect((await sendTest(failingId)).status).toBe(412);
    expect(await storedTestDeliveries(api.em(), endpointId)).toEqual([]);
    expect(await storedTestDeliveries(api.em(), failingId)).toEqual([]);
  });
});

describe('cross-workspace isolation', () => {
  sendTest.itHidesOtherWorkspaces('gets no event');
});
