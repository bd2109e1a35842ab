import { deleteIdentity as deleteIdentityRecord } from '@keyplane/db';
import { z } from 'zod';
import { identityPermission, requirePermissions } from '../../middleware/auth.ts';
import { identityRefSchema } from '../../schemas.ts';
import { settle } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityNotFound } from './notFound.ts';

export const deleteIdentityInput = z.strictObject({ identity: identityRefSchema });

/**
 * `data: {}`. The reference answers this procedure with `meta` alone, but the interface spec
 * (binding) and the contract give every success the `{meta, data}` envelope; clients that expect no
 * `data` ignore it.
 */
export const deleteIdentityOutput = z.object({});

/** In the reference order: the permission (403, before any lookup), then the lookup (404). */
export const deleteIdentity = rootKeyProcedure
  .meta({ public: true })
  .input(deleteIdentityInput)
  .output(deleteIdentityOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [identityPermission('*', 'delete_identity')]);
    const { workspaceId } = ctx.rootKey;
    if (!(await deleteIdentityRecord(ctx.em, workspaceId, input.identity))) throw identityNotFound();
    // Its keys now verify without it (no identity, no shared limits): this node forgets them now,
    // the others on the NOTIFY sent at commit.
    await settle(ctx.services, { workspaceId });
    return {};
  });
