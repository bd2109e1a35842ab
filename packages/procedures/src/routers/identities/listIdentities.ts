import { listIdentities as listIdentityRecords } from '@keyplane/db';
import { z } from 'zod';
import { requireIdentityReads } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityData, identityOutput } from '../keys/keyResponse.ts';

export const listIdentitiesInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on the id or the externalId. */
  search: textSchema.max(256).optional(),
});

export const listIdentitiesOutput = listOutput(identityOutput);

/**
 * The workspace's live identities in id order. As in the reference, the permission is checked for
 * each identity on the page (`identity.<id>.read_identity` or the wildcard), so an empty page
 * needs none.
 */
export const listIdentities = rootKeyProcedure
  .meta({ public: true, list: true })
  .input(listIdentitiesInput)
  .output(listIdentitiesOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const found = await listIdentityRecords(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      search: input.search,
      count: input.limit + 1,
    });
    requireIdentityReads(
      ctx.rootKey,
      found.slice(0, input.limit).map((identity) => identity.id),
    );
    return toPage(workspaceId, found, input.limit, identityData);
  });
