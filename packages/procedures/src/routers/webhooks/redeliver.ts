import { isGranted, webhookDeliveryNotFound } from '@keyplane/core';
import { findWebhookDelivery, redeliverWebhook } from '@keyplane/db';
import { z } from 'zod';
import { authorizeFound, webhookPermission } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { requireEnabled, requireEndpoint } from './endpoints.ts';

export const redeliverInput = z.strictObject({ deliveryId: resourceIdSchema });

/** The new delivery's id; the one redelivered stays in the log as it was. */
export const redeliverOutput = z.object({ deliveryId: z.string() });

/**
 * Sends a delivery's event again, as a new delivery to the same endpoint. The delivery with
 * `webhook.<endpointId>.update_endpoint` (a 404 only with `webhook.*.update_endpoint`; else a
 * delivery missing and one of another endpoint are the same 403, naming the wildcard), then the
 * endpoint must be enabled (412).
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
    const update = (endpointId: string) => webhookPermission(endpointId, 'update_endpoint');
    const delivery = authorizeFound(ctx.rootKey, {
      found: await findWebhookDelivery(ctx.em, workspaceId, input.deliveryId),
      notFound: () => webhookDeliveryNotFound(input.deliveryId),
      required: ({ endpointId }) => [update(endpointId)],
      wildcards: [update('*')],
      visible: ({ endpointId }) => isGranted(ctx.rootKey.permissions, webhookPermission(endpointId, 'read_endpoint')),
    });
    requireEnabled(await requireEndpoint(ctx.em, workspaceId, delivery.endpointId));
    // Undefined when the endpoint, and so the delivery, was deleted since it was looked up.
    const deliveryId = await redeliverWebhook(ctx.em, workspaceId, input.deliveryId);
    if (deliveryId === undefined) throw webhookDeliveryNotFound(input.deliveryId);
    return { deliveryId };
  });
