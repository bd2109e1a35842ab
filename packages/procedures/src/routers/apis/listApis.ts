import { listApis as listApiRecords } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requireReadOfEach } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { apiData, getApiOutput } from './getApi.ts';

export const listApisInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on the id or the name. */
  search: textSchema.max(256).optional(),
});

export const listApisOutput = listOutput(getApiOutput);

/**
 * Internal (the reference has no such procedure): the workspace's live APIs in id order. As for
 * identities, `api.<id>.read_api` (or the wildcard) is checked for each API on the page.
 */
export const listApis = rootKeyProcedure
  .meta({ list: true })
  .input(listApisInput)
  .output(listApisOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const found = await listApiRecords(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      search: input.search,
      count: input.limit + 1,
    });
    requireReadOfEach(
      ctx.rootKey,
      found.slice(0, input.limit).map((api) => api.id),
      (apiId) => apiPermission(apiId, 'read_api'),
    );
    return toPage(workspaceId, found, input.limit, apiData);
  });
