import { createKey as createNewKey, preconditionFailed } from '@keyplane/core';
import { countCustomerKeys, keyCreationStore, lockPortalCustomer } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { keyNameSchema } from '../../schemas.ts';
import { portalProcedure } from '../../trpc.ts';
import { createKeyOutput } from '../keys/createKey.ts';

export const createKeyInput = z.strictObject({ name: keyNameSchema.optional() });

/**
 * A new key for the customer under the portal's key policy (keys.createKey's rule and store), their
 * identity created when absent. The customer's keys are counted and created under one lock, so the
 * policy's maximum holds however many create at once.
 */
export const createKey = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description:
      "Creates a key for the portal customer under the portal's key policy; its plaintext is in this answer only.",
    errors: [412],
  })
  .input(createKeyInput)
  .output(createKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const { portal } = ctx;
    requireScope(portal, 'keys:create');
    const { prefix, byteLength, credits, ratelimits, maxLifetimeMs, maxKeysPerCustomer } = portal.keyPolicy;
    const now = ctx.services.now();
    return ctx.em.transactional(async (tx) => {
      await lockPortalCustomer(tx, portal.portalId, portal.externalId);
      if (maxKeysPerCustomer !== undefined) {
        const held = await countCustomerKeys(tx, portal.workspaceId, portal.apiId, portal.externalId);
        if (held >= maxKeysPerCustomer) {
          throw preconditionFailed(
            `You may hold at most ${maxKeysPerCustomer} keys here. Delete one before creating another.`,
          );
        }
      }
      return createNewKey(keyCreationStore(tx, ctx.changeLog, ctx.services.limits), {
        workspaceId: portal.workspaceId,
        apiId: portal.apiId,
        name: input.name,
        externalId: portal.externalId,
        prefix,
        byteLength,
        credits,
        ratelimits,
        expiresAt: maxLifetimeMs === undefined ? undefined : new Date(now + maxLifetimeMs),
        enabled: true,
        recoverable: false,
      });
    });
  });
