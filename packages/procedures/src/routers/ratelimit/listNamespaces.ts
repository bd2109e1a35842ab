import { listRatelimitNamespaces } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission } from '../../middleware/auth.ts';
import { listOutput, paginationInput, readablePage } from '../../pagination.ts';
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
  .query(({ ctx, input }) =>
    readablePage(
      ctx.rootKey,
      input,
      (query) => listRatelimitNamespaces(ctx.em, ctx.rootKey.workspaceId, query),
      (namespaceId) => ratelimitPermission(namespaceId, 'read_namespace'),
      (namespace) => namespace,
    ),
  );
