import { listRatelimitNamespaces } from '@keyplane/db';
import { z } from 'zod';
import { grantedPage, listOutput, paginationInput } from '../../pagination.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listNamespacesInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on the id or the name. */
  search: textSchema.max(256).optional(),
});

export const listNamespacesOutput = listOutput(z.object({ id: z.string(), name: z.string(), createdAt: z.number() }));

/**
 * Internal (dashboard and typed client only): the workspace's live namespaces in id order, those the
 * root key may read: all with `ratelimit.*.read_namespace`, else the ones its grants name.
 */
export const listNamespaces = rootKeyProcedure
  .meta({ list: true })
  .input(listNamespacesInput)
  .output(listNamespacesOutput)
  .query(({ ctx, input }) =>
    grantedPage(
      ctx.rootKey,
      input,
      { resourceType: 'ratelimit', action: 'read_namespace' },
      (query) => listRatelimitNamespaces(ctx.em, ctx.rootKey.workspaceId, query),
      (namespace) => namespace,
    ),
  );
