import { listRatelimitNamespaces } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requireReadOfEach } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listNamespacesInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on the id or the name. */
  search: textSchema.max(256).optional(),
});

export const listNamespacesOutput = listOutput(z.object({ id: z.string(), name: z.string(), createdAt: z.number() }));

/**
 * Internal (dashboard and typed client only): the workspace's live namespaces in id order, with
 * `ratelimit.<id>.read_namespace` (or the wildcard) for each namespace on the page.
 */
export const listNamespaces = rootKeyProcedure
  .meta({ list: true })
  .input(listNamespacesInput)
  .output(listNamespacesOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const found = await listRatelimitNamespaces(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      search: input.search,
      count: input.limit + 1,
    });
    requireReadOfEach(
      ctx.rootKey,
      found.slice(0, input.limit).map((namespace) => namespace.id),
      (namespaceId) => ratelimitPermission(namespaceId, 'read_namespace'),
    );
    return toPage(workspaceId, found, input.limit, (namespace) => namespace);
  });
