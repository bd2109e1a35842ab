import { deleteKey as deleteKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { portalProcedure } from '../../trpc.ts';
import { loadCustomerKey } from './customerKeys.ts';

export const deleteKeyInput = z.strictObject({ keyId: resourceIdSchema });

/** Deletes one of the customer's keys (softly, as keys.deleteKey does); it stops verifying before the call returns. */
export const deleteKey = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "Deletes one of the portal customer's keys.",
    errors: [404],
  })
  .input(deleteKeyInput)
  .output(z.object({}))
  .mutation(async ({ ctx, input }) => {
    requireScope(ctx.portal, 'keys:read');
    requireScope(ctx.portal, 'keys:delete');
    const key = await loadCustomerKey(ctx, input.keyId);
    await deleteKeyRecord(ctx.em, ctx.changeLog, key.workspaceId, key.id, { permanent: false });
    return {};
  });
