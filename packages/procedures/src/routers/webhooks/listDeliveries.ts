import { isGranted, webhookPayloadReader } from '@keyplane/core';
import { listWebhookDeliveries, type WebhookDeliveryRecord } from '@keyplane/db';
import { z } from 'zod';
import { type RootKeyPrincipal, requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointIdSchema, requireEndpoint } from './endpoints.ts';

export const listDeliveriesInput = z.strictObject({
  ...paginationInput,
  /** Only this endpoint's deliveries; absent: every endpoint's. */
  endpointId: endpointIdSchema.optional(),
});

/** `WebhookDelivery`: one event sent (or to be sent) to one endpoint, with each attempt and what it got. */
const deliveryOutput = z
  .object({
    deliveryId: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    /** The body sent: `{ type, timestamp, data }`; without `data` when `payloadWithheld`. */
    payload: z.record(z.string(), z.unknown()),
    /**
     * True when the caller may not read what the event is about (docs/webhooks.md#who-reads-the-delivery-log),
     * so its `data` is left out.
     */
    payloadWithheld: z.boolean(),
    state: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(
      z.object({
        attemptedAt: z.number().int(),
        /** null: no answer (the error says why). */
        statusCode: z.number().int().nullable(),
        error: z.string().nullable(),
        /** The start of the answer's body. */
        responseBody: z.string().nullable(),
        durationMs: z.number(),
      }),
    ),
    /** When the next attempt is due; null once the delivery succeeded or failed for good. */
    nextAttemptAt: z.number().int().nullable(),
    createdAt: z.number().int(),
    completedAt: z.number().int().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const listDeliveriesOutput = listOutput(deliveryOutput);

/** A delivery as `principal` may see it: the event's `data` only when it may read what the event is about. */
function deliveryData(principal: RootKeyPrincipal) {
  return ({ id, payload, ...delivery }: WebhookDeliveryRecord): z.infer<typeof deliveryOutput> => {
    const data = typeof payload.data === 'object' && payload.data !== null ? payload.data : {};
    const reader = webhookPayloadReader(delivery.eventType, data as Record<string, unknown>);
    const readable = reader === 'everyReader' || (reader !== 'nobody' && isGranted(principal.permissions, reader));
    return {
      deliveryId: id,
      ...delivery,
      payload: readable ? payload : { type: payload.type, timestamp: payload.timestamp },
      payloadWithheld: !readable,
    };
  };
}

/**
 * The workspace's deliveries, newest first. One endpoint's need `webhook.<endpointId>.read_endpoint`
 * (403, before any lookup) and the endpoint (404); every endpoint's need `webhook.*.read_endpoint`.
 * Each event's `data` is shown only to a caller who may read what it is about (webhookPayloadReader).
 */
export const listDeliveries = rootKeyProcedure
  .meta({
    public: true,
    list: true,
    description: 'Lists webhook deliveries, newest first, each with its attempts and the answers they got.',
    errors: [404],
  })
  .input(listDeliveriesInput)
  .output(listDeliveriesOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission(input.endpointId ?? '*', 'read_endpoint')]);
    const { workspaceId } = ctx.rootKey;
    if (input.endpointId !== undefined) await requireEndpoint(ctx.em, workspaceId, input.endpointId);
    const found = await listWebhookDeliveries(ctx.em, workspaceId, {
      endpointId: input.endpointId,
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
    });
    return toPage(workspaceId, found, input.limit, deliveryData(ctx.rootKey));
  });
