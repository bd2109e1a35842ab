import { deleteKey as deleteKeyRecord } from '@keyplane/db';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteKeyInput = z.strictObject({
  keyId: resourceIdSchema,
  permanent: z.boolean().default(false),
});

export const deleteKeyOutput = z.object({});

export const deleteKey = rootKeyProcedure
  .meta({ public: true, description: 'Deletes a key; it stops verifying before the call returns.', errors: [404] })
  .input(deleteKeyInput)
  .output(deleteKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['delete_key']);
    await deleteKeyRecord(ctx.em, ctx.changeLog, key.workspaceId, key.id, { permanent: input.permanent });
    return {};
  });
