import { listRootKeyPage } from '@keyplane/db';
import { z } from 'zod';
import { READ_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { chosenPage, decodeCursor, listOutput, MAX_PAGE_PERMISSIONS, paginationInput } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';

// Optional, as before it was a list: `{}` is the first page of 100.
export const listRootKeysInput = z.strictObject({ ...paginationInput }).prefault({});

export const listRootKeysOutput = listOutput(
  z.object({
    rootKeyId: z.string(),
    name: z.string().nullable(),
    start: z.string(),
    permissions: z.array(z.string()),
    createdAt: z.number(),
    lastUsedAt: z.number().nullable(),
    expiresAt: z.number().nullable(),
    revokedAt: z.number().nullable(),
  }),
);

/**
 * Internal (dashboard and typed client only): the workspace's root keys in creation order, never
 * their secrets. A page ends early once its keys would carry more than MAX_PAGE_PERMISSIONS
 * permissions between them (docs/contract.md#limits).
 */
export const listRootKeys = rootKeyProcedure
  .meta({ list: true })
  .input(listRootKeysInput)
  .output(listRootKeysOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [READ_ROOT_KEYS]);
    const { workspaceId } = ctx.rootKey;
    const page = await listRootKeyPage(
      ctx.em,
      workspaceId,
      { fromId: decodeCursor(workspaceId, input.cursor), count: input.limit + 1 },
      MAX_PAGE_PERMISSIONS,
    );
    return chosenPage(workspaceId, page, (rootKey) => rootKey);
  });
