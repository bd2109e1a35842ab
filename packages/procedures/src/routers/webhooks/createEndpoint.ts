import { DEFAULT_EXPIRING_NOTICE_MS, newWebhookSecret, webhookEndpointLimitReached } from '@keyplane/core';
import { createWebhookEndpoint } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import {
  creditsLowSchema,
  creditsLowSettings,
  endpointApiIdsSchema,
  endpointDescriptionSchema,
  endpointUrlSchema,
  eventTypesSchema,
  expiringNoticeMsSchema,
  requireApis,
  requireTargetUrl,
} from './endpoints.ts';

export const createEndpointInput = z.strictObject({
  url: endpointUrlSchema,
  eventTypes: eventTypesSchema,
  apiIds: endpointApiIdsSchema.optional(),
  description: endpointDescriptionSchema.optional(),
  enabled: z.boolean().default(true),
  /** Omitted: a threshold of DEFAULT_CREDITS_LOW_THRESHOLD credits. */
  creditsLow: creditsLowSchema.optional(),
  expiringNoticeMs: expiringNoticeMsSchema.default(DEFAULT_EXPIRING_NOTICE_MS),
});

/** The signing secret is answered here and by rotateSecret alone; it is never listed. */
export const createEndpointOutput = z.object({ endpointId: z.string(), secret: z.string() });

/**
 * `webhook.*.create_endpoint` (403), the target (400), each API named (404), then room for another
 * endpoint (412, docs/contract.md#limits).
 */
export const createEndpoint = rootKeyProcedure
  .meta({
    public: true,
    description: 'Creates a webhook endpoint and answers its signing secret, which is shown only this once.',
    errors: [404, 412],
  })
  .input(createEndpointInput)
  .output(createEndpointOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission('*', 'create_endpoint')]);
    requireTargetUrl(input.url, ctx.services.webhooksAllowPrivate);
    const { workspaceId } = ctx.rootKey;
    await requireApis(ctx.em, workspaceId, input.apiIds ?? []);
    const secret = newWebhookSecret();
    const limit = ctx.services.webhookEndpointsPerWorkspace;
    const endpoint = await createWebhookEndpoint(
      ctx.em,
      workspaceId,
      {
        url: input.url,
        description: input.description ?? null,
        eventTypes: input.eventTypes,
        apiIds: input.apiIds ?? null,
        enabled: input.enabled,
        ...creditsLowSettings(input.creditsLow),
        expiringNoticeMs: input.expiringNoticeMs,
      },
      secret,
      limit,
    );
    if (!endpoint) throw webhookEndpointLimitReached(limit);
    return { endpointId: endpoint.id, secret };
  });
