import { createIdentity as createIdentityRecord } from '@keyplane/db';
import { z } from 'zod';
import { identityPermission, requirePermissions } from '../../middleware/auth.ts';
import { externalIdSchema, identityMetaSchema, ratelimitsSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

// Unknown fields are a 400 here too (contract), although the reference accepts them on this body.
export const createIdentityInput = z.strictObject({
  externalId: externalIdSchema,
  meta: identityMetaSchema.optional(),
  ratelimits: ratelimitsSchema.optional(),
});

export const createIdentityOutput = z.object({ identityId: z.string() });

export const createIdentity = rootKeyProcedure
  .meta({
    public: true,
    description: 'Creates an identity for an external id, with meta and rate limits its keys share.',
    errors: [409],
  })
  .input(createIdentityInput)
  .output(createIdentityOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [identityPermission('*', 'create_identity')]);
    const identityId = await createIdentityRecord(ctx.em, ctx.rootKey.workspaceId, {
      externalId: input.externalId,
      meta: input.meta ?? null,
      ratelimits: input.ratelimits ?? [],
    });
    return { identityId };
  });
