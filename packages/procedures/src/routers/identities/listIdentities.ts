import { listIdentities as listIdentityRecords } from '@keyplane/db';
import { z } from 'zod';
import { grantedPage, listOutput, MAX_PAGE_BYTES, paginationInput } from '../../pagination.ts';
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
 * The workspace's live identities in id order, those the root key may read: all with
 * `identity.*.read_identity`, else the ones its `identity.<id>.read_identity` name (a key with
 * neither gets 403), so that neither a page nor a search tells of identities it may not read. A
 * page ends early once its identities' meta would take more than MAX_PAGE_BYTES
 * (docs/contract.md#limits).
 */
export const listIdentities = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's identities." })
  .input(listIdentitiesInput)
  .output(listIdentitiesOutput)
  .query(({ ctx, input }) =>
    grantedPage(
      ctx.rootKey,
      input,
      { resourceType: 'identity', action: 'read_identity' },
      (query) => listIdentityRecords(ctx.em, ctx.rootKey.workspaceId, query, MAX_PAGE_BYTES),
      identityData,
    ),
  );
