import { newWebhookSecret, webhookEndpointNotFound } from '@keyplane/core';
import { setWebhookSecret } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions, webhookPermission } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { endpointIdSchema } from './endpoints.ts';

export const rotateSecretInput = z.strictObject({ endpointId: endpointIdSchema });

/** The new secret, shown this once. */
export const rotateSecretOutput = z.object({ secret: z.string() });

/**
 * Replaces the signing secret: every delivery from now on, retries included, is signed with the
 * new one. `webhook.<endpointId>.update_endpoint` (403, before any lookup), then the endpoint (404).
 */
export const rotateSecret = rootKeyProcedure
  .meta({
    public: true,
    description: "Replaces a webhook endpoint's signing secret and answers the new one, which is shown only this once.",
    errors: [404],
  })
  .input(rotateSecretInput)
  .output(rotateSecretOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [webhookPermission(input.endpointId, 'update_endpoint')]);
    const secret = newWebhookSecret();
    if (!(await setWebhookSecret(ctx.em, ctx.rootKey.workspaceId, input.endpointId, secret))) {
      throw webhookEndpointNotFound(input.endpointId);
    }
    return { secret };
  });
