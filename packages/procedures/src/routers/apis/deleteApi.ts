import { deleteApiUnlessProtected } from '@keyplane/core';
import { apiDeletionStore } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteApiInput = z.strictObject({ apiId: apiIdSchema });

export const deleteApiOutput = z.object({});

/** Soft-deletes the API: from then on its keys verify as NOT_FOUND and are 404 everywhere. */
export const deleteApi = rootKeyProcedure
  .meta({
    public: true,
    description: 'Deletes an API (unless it has delete protection); its keys stop existing and verifying.',
    errors: [404, 412],
  })
  .input(deleteApiInput)
  .output(deleteApiOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'delete_api')]);
    await ctx.em.transactional((tx) =>
      deleteApiUnlessProtected(apiDeletionStore(tx, ctx.changeLog), {
        workspaceId: ctx.rootKey.workspaceId,
        apiId: input.apiId,
      }),
    );
    return {};
  });
