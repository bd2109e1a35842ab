import { listApis as listApiRecords } from '@keyplane/db';
import { z } from 'zod';
import { grantedPage, listOutput, paginationInput } from '../../pagination.ts';
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
 * Internal (the reference has no such procedure): the workspace's live APIs in id order, those the
 * root key may read: all of them with `api.*.read_api`, else the ones its `api.<id>.read_api` name.
 */
export const listApis = rootKeyProcedure
  .meta({ list: true })
  .input(listApisInput)
  .output(listApisOutput)
  .query(({ ctx, input }) =>
    grantedPage(
      ctx.rootKey,
      input,
      { resourceType: 'api', action: 'read_api' },
      (query) => listApiRecords(ctx.em, ctx.rootKey.workspaceId, query),
      apiData,
    ),
  );
