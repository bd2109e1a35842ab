import { deleteKey as deleteKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteKeyInput = z.strictObject({
  keyId: resourceIdSchema,
  permanent: z.boolean().default(false),
});

export const deleteKeyOutput = z.object({});

export const deleteKey = rootKeyProcedure
  .meta({ public: true })
  .input(deleteKeyInput)
  .output(deleteKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['delete_key']);
    const change = await deleteKeyRecord(ctx.em, key.workspaceId, key.id, { permanent: input.permanent });
    // Other nodes hear the NOTIFY; this one must not answer from its cache before that arrives.
    await settle(ctx.services, change);
    return {};
  });
