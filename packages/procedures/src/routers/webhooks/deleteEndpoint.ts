import { webhookEndpointNotFound } from '@keyplane/core';
import { deleteWebhookEndpoint } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointIdSchema } from './endpoints.ts';

export const deleteEndpointInput = z.strictObject({ endpointId: endpointIdSchema });

export const deleteEndpointOutput = z.object({});

/** `webhook.<endpointId>.delete_endpoint` (403, before any lookup), then the endpoint (404). */
export const deleteEndpoint = rootKeyProcedure
  .meta({
    public: true,
    description: 'Deletes a webhook endpoint with its delivery log; deliveries not yet made are dropped.',
    errors: [404],
  })
  .input(deleteEndpointInput)
  .output(deleteEndpointOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission(input.endpointId, 'delete_endpoint')]);
    if (!(await deleteWebhookEndpoint(ctx.em, ctx.rootKey.workspaceId, input.endpointId))) {
      throw webhookEndpointNotFound(input.endpointId);
    }
    return {};
  });
