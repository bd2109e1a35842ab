import { updateKey as updateKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { keyNameSchema, resourceIdSchema } from '../../schemas.ts';
import { portalProcedure } from '../../trpc.ts';
import { loadCustomerKey } from './customerKeys.ts';

export const updateKeyInput = z.strictObject({ keyId: resourceIdSchema, name: keyNameSchema });

/** Renames one of the customer's keys: the only setting a customer changes. */
export const updateKey = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "Renames one of the portal customer's keys.",
    errors: [404],
  })
  .input(updateKeyInput)
  .output(z.object({}))
  .mutation(async ({ ctx, input }) => {
    requireScope(ctx.portal, 'keys:read');
    requireScope(ctx.portal, 'keys:update');
    const key = await loadCustomerKey(ctx, input.keyId);
    // No roles or permissions change, so nothing may create a permission.
    await updateKeyRecord(ctx.em, ctx.changeLog, key, { name: input.name }, { allow: () => {}, limit: 0 });
    return {};
  });
