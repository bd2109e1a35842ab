import { listApis as listApiRecords } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission } from '../../middleware/auth.ts';
import { listOutput, paginationInput, readablePage } from '../../pagination.ts';
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
  .query(({ ctx, input }) =>
    readablePage(
      ctx.rootKey,
      input,
      (query) => listApiRecords(ctx.em, ctx.rootKey.workspaceId, query),
      (apiId) => apiPermission(apiId, 'read_api'),
      apiData,
    ),
  );
