import { DomainError, notFound } from '@keyplane/core';
import { deleteApi as deleteApiRecord } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteApiInput = z.strictObject({ apiId: apiIdSchema });

export const deleteApiOutput = z.object({});

/** Soft-deletes the API: from then on its keys verify as NOT_FOUND and are 404 everywhere. */
export const deleteApi = rootKeyProcedure
  .meta({ public: true })
  .input(deleteApiInput)
  .output(deleteApiOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'delete_api')]);
    const { workspaceId } = ctx.rootKey;
    const outcome = await deleteApiRecord(ctx.em, workspaceId, input.apiId);
    if (outcome === 'not_found') throw notFound('api', `The API '${input.apiId}' was not found.`);
    if (outcome === 'protected') {
      throw new DomainError(
        412,
        'service/application/protected_resource',
        'This API has delete protection enabled. Disable it before attempting to delete.',
      );
    }
    // Other nodes hear the NOTIFY; this one must not answer from its cache before that arrives.
    await settle(ctx.services, { workspaceId });
    return {};
  });
