import { webhookEndpointNotFound } from '@keyplane/core';
import { updateWebhookEndpoint } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import {
  creditsLowSchema,
  creditsLowSettings,
  endpointApiIdsSchema,
  endpointData,
  endpointDescriptionSchema,
  endpointIdSchema,
  endpointOutput,
  endpointUrlSchema,
  eventTypesSchema,
  expiringNoticeMsSchema,
  requireApis,
  requireTargetUrl,
} from './endpoints.ts';

/** Absent fields stay as they are; `null` clears the description or the filter by API. */
export const updateEndpointInput = z.strictObject({
  endpointId: endpointIdSchema,
  url: endpointUrlSchema.optional(),
  eventTypes: eventTypesSchema.optional(),
  apiIds: endpointApiIdsSchema.nullable().optional(),
  description: endpointDescriptionSchema.nullable().optional(),
  /** Enabling an endpoint the service disabled clears why, and its failure streak. */
  enabled: z.boolean().optional(),
  /** Replaces both thresholds; one naming neither takes the default threshold. */
  creditsLow: creditsLowSchema.optional(),
  expiringNoticeMs: expiringNoticeMsSchema.optional(),
});

export const updateEndpointOutput = endpointOutput;

/**
 * `webhook.<endpointId>.update_endpoint` (403, before any lookup), the target (400), each API named
 * (`read_api` on it, 403; live, 404), the endpoint (404).
 */
export const updateEndpoint = rootKeyProcedure
  .meta({
    public: true,
    description: "Changes a webhook endpoint's target, event types, APIs, thresholds or whether it is enabled.",
    errors: [404],
  })
  .input(updateEndpointInput)
  .output(updateEndpointOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission(input.endpointId, 'update_endpoint')]);
    if (input.url !== undefined) requireTargetUrl(input.url, ctx.services.webhooksAllowPrivate);
    const { workspaceId } = ctx.rootKey;
    await requireApis(ctx, input.apiIds ?? []);
    const updated = await updateWebhookEndpoint(ctx.em, workspaceId, input.endpointId, {
      url: input.url,
      eventTypes: input.eventTypes,
      apiIds: input.apiIds,
      description: input.description,
      enabled: input.enabled,
      ...(input.creditsLow && creditsLowSettings(input.creditsLow)),
      expiringNoticeMs: input.expiringNoticeMs,
    });
    if (!updated) throw webhookEndpointNotFound(input.endpointId);
    return endpointData(updated);
  });
