import { listIdentities as listIdentityRecords } from '@keyplane/db';
import { z } from 'zod';
import { identityPermission } from '../../middleware/auth.ts';
import { listOutput, MAX_PAGE_BYTES, paginationInput, readablePage } from '../../pagination.ts';
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
 * The workspace's live identities in id order; a page ends early once its identities' meta would
 * take more than MAX_PAGE_BYTES (docs/contract.md#limits). As in the reference, the permission is checked for
 * each identity on the page (`identity.<id>.read_identity` or the wildcard), so an empty page
 * needs none.
 */
export const listIdentities = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's identities." })
  .input(listIdentitiesInput)
  .output(listIdentitiesOutput)
  .query(({ ctx, input }) =>
    readablePage(
      ctx.rootKey,
      input,
      (query) => listIdentityRecords(ctx.em, ctx.rootKey.workspaceId, query, MAX_PAGE_BYTES),
      (identityId) => identityPermission(identityId, 'read_identity'),
      identityData,
    ),
  );
