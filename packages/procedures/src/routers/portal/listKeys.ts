import { listKeyDetails } from '@keyplane/db';
import { z } from 'zod';
import { requireScope } from '../../middleware/portalSession.ts';
import { chosenPage, decodeCursor, listOutput, MAX_PAGE_BYTES, paginationInput } from '../../pagination.ts';
import { portalProcedure } from '../../trpc.ts';
import { keyResponseData, keyResponseOutput } from '../keys/keyResponse.ts';

export const listKeysInput = z.strictObject({ ...paginationInput });

export const listKeys = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    list: true,
    description: "A portal customer's keys on the portal's API, as keys.getKey answers them, never their plaintext.",
  })
  .input(listKeysInput)
  .output(listOutput(keyResponseOutput))
  .query(async ({ ctx, input }) => {
    const { portal } = ctx;
    requireScope(portal, 'keys:read');
    if (portal.identityId === null) return { data: [], pagination: { hasMore: false } };
    const keys = await listKeyDetails(
      ctx.em,
      portal.workspaceId,
      {
        apiId: portal.apiId,
        externalId: portal.externalId,
        fromId: decodeCursor(portal.workspaceId, input.cursor),
        count: input.limit + 1,
      },
      MAX_PAGE_BYTES,
    );
    const now = ctx.services.now();
    return chosenPage(portal.workspaceId, keys, (key) => keyResponseData(key, now));
  });
