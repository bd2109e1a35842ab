import { webhookEndpointNotFound } from '@keyplane/core';
import { enqueueTestEvent } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointIdSchema, requireEnabled, requireEndpoint } from './endpoints.ts';

export const sendTestInput = z.strictObject({ endpointId: endpointIdSchema });

export const sendTestOutput = z.object({});

const TEST_EVENT_MESSAGE = 'This is a test event from Keyplane.';

/**
 * Queues a `webhook.test` event for this endpoint alone, whatever types it wants; it shows in the
 * delivery log like any other. `webhook.<endpointId>.update_endpoint` (403, before any lookup),
 * the endpoint (404), enabled (412).
 */
export const sendTest = rootKeyProcedure
  .meta({
    public: true,
    description: 'Sends a test event to a webhook endpoint; its delivery shows in the delivery log.',
    errors: [404, 412],
  })
  .input(sendTestInput)
  .output(sendTestOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission(input.endpointId, 'update_endpoint')]);
    const { workspaceId } = ctx.rootKey;
    requireEnabled(await requireEndpoint(ctx.em, workspaceId, input.endpointId));
    const data = { endpointId: input.endpointId, message: TEST_EVENT_MESSAGE };
    // False when the endpoint was deleted since it was looked up: nothing was written.
    if (!(await enqueueTestEvent(ctx.em, workspaceId, input.endpointId, data))) {
      throw webhookEndpointNotFound(input.endpointId);
    }
    return {};
  });
