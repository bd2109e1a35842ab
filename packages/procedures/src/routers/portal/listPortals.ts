import { listPortals as listPortalRecords } from '@keyplane/db';
import { z } from 'zod';
import { grantedPage, listOutput, paginationInput } from '../../pagination.ts';
import { apiIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { portalData, portalOutput } from './portalSchemas.ts';

export const listPortalsInput = z.strictObject({
  ...paginationInput,
  /** Only the portals of this API. */
  apiId: apiIdSchema.optional(),
});

export const listPortals = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's portals the root key may read." })
  .input(listPortalsInput)
  .output(listOutput(portalOutput))
  .query(({ ctx, input }) =>
    grantedPage(
      ctx.rootKey,
      input,
      { resourceType: 'portal', action: 'read_portal' },
      (query) => listPortalRecords(ctx.em, ctx.rootKey.workspaceId, { ...query, apiId: input.apiId }),
      portalData,
    ),
  );
