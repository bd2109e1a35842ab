import { apiNotFound } from '@keyplane/core';
import { findApi, listKeyDetails } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { authorizeDecryption } from '../../middleware/decryption.ts';
import { chosenPage, decodeCursor, listOutput, MAX_PAGE_BYTES, paginationInput } from '../../pagination.ts';
import { apiIdSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { keyResponseData, keyResponseOutput } from '../keys/keyResponse.ts';

export const listKeysInput = z.strictObject({
  apiId: apiIdSchema,
  ...paginationInput,
  // Any text, as the reference: identities made by keys.migrateKeys need not match createKey's pattern.
  externalId: textSchema.min(1).optional(),
  /** Our addition: case-insensitive "contains" on the key's id, name or start. */
  search: textSchema.max(256).optional(),
  decrypt: z.boolean().default(false),
  /** Accepted for compatibility and ignored, as in the reference product: listings read Postgres, not a cache. */
  revalidateKeysCache: z.boolean().default(false),
});

export const listKeysOutput = listOutput(keyResponseOutput);

/**
 * The API's live keys in id order; a page ends early once its keys would take more than
 * MAX_PAGE_BYTES (docs/contract.md#limits). `read_key` and `read_api` on the API named (403, before
 * the lookup), then the API (404): unlike the reference product, a root key that may not read them
 * gets a 403, not a masked 404 (contract: we never mask a 403 as 404).
 */
export const listKeys = rootKeyProcedure
  .meta({
    public: true,
    list: true,
    description: "Lists an API's keys, optionally with their plaintext when they are recoverable.",
    errors: [404, 412],
  })
  .input(listKeysInput)
  .output(listKeysOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const fromId = decodeCursor(workspaceId, input.cursor);
    // Before the lookup: whether an API exists is no answer for a caller that may not read it.
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'read_key'), apiPermission(input.apiId, 'read_api')]);
    const api = await findApi(ctx.em, workspaceId, input.apiId);
    if (!api) throw apiNotFound(input.apiId);
    const dataKey = input.decrypt ? await authorizeDecryption(ctx, api.id) : undefined;
    const keys = await listKeyDetails(
      ctx.em,
      workspaceId,
      { apiId: api.id, fromId, externalId: input.externalId, search: input.search, count: input.limit + 1 },
      MAX_PAGE_BYTES,
    );
    const now = ctx.services.now();
    return chosenPage(workspaceId, keys, (key) => keyResponseData(key, now, dataKey));
  });
