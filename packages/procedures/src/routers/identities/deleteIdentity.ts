import { identityNotFound } from '@keyplane/core';
import { deleteIdentity as deleteIdentityRecord } from '@keyplane/db';
import { z } from 'zod';
import { identityPermission, requirePermissions } from '../../middleware/auth.ts';
import { identityRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteIdentityInput = z.strictObject({ identity: identityRefSchema });

/**
 * `data: {}`. The reference answers this procedure with `meta` alone, but every success has the
 * `{meta, data}` envelope (docs/contract.md#envelopes); clients that expect no `data` ignore it.
 */
export const deleteIdentityOutput = z.object({});

/** In the reference order: the permission (403, before any lookup), then the lookup (404). */
export const deleteIdentity = rootKeyProcedure
  .meta({
    public: true,
    description: 'Deletes an identity; its keys stay and lose its meta and rate limits.',
    errors: [404],
  })
  .input(deleteIdentityInput)
  .output(deleteIdentityOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [identityPermission('*', 'delete_identity')]);
    const { workspaceId } = ctx.rootKey;
    // Its keys verify without it from then on: no identity, no shared limits.
    if (!(await deleteIdentityRecord(ctx.em, ctx.changeLog, workspaceId, input.identity))) throw identityNotFound();
    return {};
  });
