import { apiNotFound } from '@keyplane/core';
import { findApi, KEY_TABLE_FILTERS, KEY_TABLE_SORTS, listKeyTablePage } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { MAX_PAGE_SIZE } from '../../pagination.ts';
import { apiIdSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { keyRowData, keyRowOutput } from '../keys/keyResponse.ts';

export const listKeysPageInput = z.strictObject({
  apiId: apiIdSchema,
  /** Case-insensitive "contains" on the key's id, name, start or its identity's external id. */
  search: textSchema.max(256).optional(),
  /** A key status, or `low_credits` (core `hasLowCredits`). */
  status: z.enum(KEY_TABLE_FILTERS).optional(),
  sort: z.enum(KEY_TABLE_SORTS).default('createdAt'),
  direction: z.enum(['asc', 'desc']).default('desc'),
  /** 1 is the first page; a page past the last answers no keys and the total. */
  page: z.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
});

export const listKeysPageOutput = z.object({
  keys: z.array(keyRowOutput),
  /** Every key the search and status match, over all pages. */
  total: z.number().int(),
});

/**
 * Internal (the dashboard's keys table): one numbered page of an API's keys, searched, filtered by
 * status and sorted by any column on the server, so order, filter and total hold across pages. Each
 * key as a table row: without meta, permissions, roles and limits, which a page of 100 keys could
 * carry by the hundred megabytes (docs/contract.md#limits).
 * Permissions as apis.listKeys: the API's read_key and read_api (403), then the API (404).
 */
export const listKeysPage = rootKeyProcedure
  .input(listKeysPageInput)
  .output(listKeysPageOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    // Before the lookup: whether an API exists is no answer for a caller that may not read it.
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'read_key'), apiPermission(input.apiId, 'read_api')]);
    const api = await findApi(ctx.em, workspaceId, input.apiId);
    if (!api) throw apiNotFound(input.apiId);
    const now = ctx.services.now();
    const page = await listKeyTablePage(ctx.em, workspaceId, {
      apiId: api.id,
      search: input.search,
      status: input.status,
      sort: { column: input.sort, descending: input.direction === 'desc' },
      offset: (input.page - 1) * input.pageSize,
      limit: input.pageSize,
      now,
    });
    return { keys: page.keys.map((key) => keyRowData(key, now)), total: page.total };
  });
