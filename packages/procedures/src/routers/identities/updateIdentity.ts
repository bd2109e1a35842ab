import { identityNotFound } from '@keyplane/core';
import { updateIdentity as updateIdentityRecord } from '@keyplane/db';
import { z } from 'zod';
import { identityPermission, requirePermissions } from '../../middleware/auth.ts';
import { identityMetaSchema, identityRefSchema, ratelimitsSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityData, identityOutput } from '../keys/keyResponse.ts';

export const updateIdentityInput = z.strictObject({
  identity: identityRefSchema,
  /** Replaces the stored meta; `{}` and null clear it. */
  meta: identityMetaSchema.nullable().optional(),
  /** Replaces the limits by name: same names keep their ids, missing names go, `[]` removes all. */
  ratelimits: ratelimitsSchema.optional(),
});

export const updateIdentityOutput = identityOutput;

/** In the reference order: the permission (403, before any lookup), then the lookup (404). */
export const updateIdentity = rootKeyProcedure
  .meta({ public: true, description: "Replaces an identity's meta or rate limits.", errors: [404] })
  .input(updateIdentityInput)
  .output(updateIdentityOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [identityPermission('*', 'update_identity')]);
    const { workspaceId } = ctx.rootKey;
    const updated = await updateIdentityRecord(ctx.em, ctx.changeLog, workspaceId, input.identity, {
      meta: input.meta,
      ratelimits: input.ratelimits,
    });
    if (!updated) throw identityNotFound();
    return identityData(updated);
  });
