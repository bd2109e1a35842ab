import {
  apiNotFound,
  badRequest,
  DEFAULT_CREDITS_LOW_THRESHOLD,
  preconditionFailed,
  WEBHOOK_EVENT_TYPES,
  webhookEndpointNotFound,
  webhookUrlProblem,
} from '@keyplane/core';
import { type EntityManager, findApi, findWebhookEndpoint, type WebhookEndpointRecord } from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { apiPermission, type RootKeyPrincipal, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema, MAX_INT4, resourceIdSchema, textSchema } from '../../schemas.ts';

// What webhooks.createEndpoint and updateEndpoint take and every endpoint procedure answers.

export const endpointIdSchema = resourceIdSchema;

/** The column holds 2048 characters; whether the target may be reached is `requireTargetUrl`'s to say. */
export const endpointUrlSchema = textSchema.min(1).max(2048);

/** Each type at most once; `*` asks for every type, those added later included. */
export const eventTypesSchema = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, '*']))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .transform((types) => [...new Set(types)]);

/** Only events of these APIs (workspace events such as `rootkey.created` always go); absent or null: every API. */
export const endpointApiIdsSchema = z
  .array(apiIdSchema)
  .min(1)
  .max(100)
  .transform((apiIds) => [...new Set(apiIds)]);

export const endpointDescriptionSchema = textSchema.min(1).max(255);

/** When `key.credits.low` is sent: below an absolute number of credits, a percentage of the refill amount, or both (the higher wins). */
export const creditsLowSchema = z.strictObject({
  threshold: z.number().int().min(0).max(MAX_INT4).optional(),
  percent: z.number().int().min(1).max(100).optional(),
});

/** How long before a key's expiry `key.expiring` is sent: a minute to a year. */
export const expiringNoticeMsSchema = z
  .number()
  .int()
  .min(60_000)
  .max(365 * 24 * 3_600_000);

/** The stored thresholds of a `creditsLow` setting: one naming neither takes the default threshold. */
export function creditsLowSettings(creditsLow: z.output<typeof creditsLowSchema> | undefined) {
  return {
    creditsLowThreshold:
      creditsLow?.threshold ?? (creditsLow?.percent === undefined ? DEFAULT_CREDITS_LOW_THRESHOLD : null),
    creditsLowPercent: creditsLow?.percent ?? null,
  };
}

/** `WebhookEndpoint`: never its secret. */
export const endpointOutput = z
  .object({
    endpointId: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z.array(z.string()),
    /** null: every API. */
    apiIds: z.array(z.string()).nullable(),
    enabled: z.boolean(),
    /** Why the service disabled the endpoint (it failed for days); null when it did not. */
    disabledReason: z.string().nullable(),
    /** Unix ms of the first failure of the current streak; null while deliveries succeed. */
    failingSince: z.number().int().nullable(),
    creditsLow: z.object({ threshold: z.number().int().nullable(), percent: z.number().int().nullable() }),
    expiringNoticeMs: z.number().int(),
    createdAt: z.number().int(),
    updatedAt: z.number().int().nullable(),
  })
  .meta({ id: 'WebhookEndpoint' });

export function endpointData(endpoint: WebhookEndpointRecord): z.infer<typeof endpointOutput> {
  return {
    endpointId: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    apiIds: endpoint.apiIds,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    failingSince: endpoint.failingSince,
    creditsLow: { threshold: endpoint.creditsLowThreshold, percent: endpoint.creditsLowPercent },
    expiringNoticeMs: endpoint.expiringNoticeMs,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

/** A 400 naming `body.url` when deliveries may not go there (webhookUrlProblem). */
export function requireTargetUrl(url: string, allowPrivate: boolean): void {
  const problem = webhookUrlProblem(url, allowPrivate);
  if (problem) throw badRequest(problem, [{ location: 'body.url', message: problem }]);
}

/**
 * The APIs an endpoint is to hear of: `api.<apiId>.read_api` for each (403 naming those missing,
 * before any lookup: whether an API exists is no answer for a caller that may not read it), then a
 * 404 naming the first that is no live API of the workspace.
 */
export async function requireApis(
  ctx: Pick<Context, 'em'> & { rootKey: RootKeyPrincipal },
  apiIds: readonly string[],
): Promise<void> {
  requirePermissions(
    ctx.rootKey,
    apiIds.map((apiId) => apiPermission(apiId, 'read_api')),
  );
  for (const apiId of apiIds) {
    if (!(await findApi(ctx.em, ctx.rootKey.workspaceId, apiId))) throw apiNotFound(apiId);
  }
}

/** The workspace's endpoint, or the 404: another workspace's endpoint does not exist for the caller. */
export async function requireEndpoint(
  em: EntityManager,
  workspaceId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord> {
  const endpoint = await findWebhookEndpoint(em, workspaceId, endpointId);
  if (!endpoint) throw webhookEndpointNotFound(endpointId);
  return endpoint;
}

/**
 * A 412 for an endpoint that is disabled: the delivery worker closes a disabled endpoint's
 * deliveries unsent, so an event sent to it on request would only fail.
 */
export function requireEnabled(endpoint: WebhookEndpointRecord): void {
  if (!endpoint.enabled) {
    throw preconditionFailed(
      `The webhook endpoint '${endpoint.id}' is disabled: enable it with webhooks.updateEndpoint before sending it events.`,
    );
  }
}
