import { listWebhookDeliveries, type WebhookDeliveryRecord } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
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
    /** The body sent: `{ type, timestamp, data }`. */
    payload: z.record(z.string(), z.unknown()),
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

const deliveryData = ({ id, ...delivery }: WebhookDeliveryRecord): z.infer<typeof deliveryOutput> => ({
  deliveryId: id,
  ...delivery,
});

/**
 * The workspace's deliveries, newest first. One endpoint's need `webhook.<endpointId>.read_endpoint`
 * (403, before any lookup) and the endpoint (404); every endpoint's need `webhook.*.read_endpoint`.
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
    return toPage(workspaceId, found, input.limit, deliveryData);
  });
