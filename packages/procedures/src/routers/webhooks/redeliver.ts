import { webhookDeliveryNotFound } from '@keyplane/core';
import { findWebhookDelivery, redeliverWebhook } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { requireEnabled, requireEndpoint } from './endpoints.ts';

export const redeliverInput = z.strictObject({ deliveryId: resourceIdSchema });

/** The new delivery's id; the one redelivered stays in the log as it was. */
export const redeliverOutput = z.object({ deliveryId: z.string() });

/**
 * Sends a delivery's event again, as a new delivery to the same endpoint. The delivery (404), then
 * `webhook.<endpointId>.update_endpoint` (403), then the endpoint must be enabled (412).
 */
export const redeliver = rootKeyProcedure
  .meta({
    public: true,
    description: "Sends a webhook delivery's event to its endpoint again, as a new delivery.",
    errors: [404, 412],
  })
  .input(redeliverInput)
  .output(redeliverOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const delivery = await findWebhookDelivery(ctx.em, workspaceId, input.deliveryId);
    if (!delivery) throw webhookDeliveryNotFound(input.deliveryId);
    requirePermissions(ctx.rootKey, [webhookPermission(delivery.endpointId, 'update_endpoint')]);
    requireEnabled(await requireEndpoint(ctx.em, workspaceId, delivery.endpointId));
    // Undefined when the endpoint, and so the delivery, was deleted since it was looked up.
    const deliveryId = await redeliverWebhook(ctx.em, workspaceId, input.deliveryId);
    if (deliveryId === undefined) throw webhookDeliveryNotFound(input.deliveryId);
    return { deliveryId };
  });
