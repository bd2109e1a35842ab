import { listRatelimitOverrides } from '@keyplane/db';
import { z } from 'zod';
import { decodeCursor, listOutput, MAX_PAGE_SIZE, paginationInput, toPage } from '../../pagination.ts';
import { ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { authorizedNamespace } from './namespaces.ts';
import { overrideData, overrideOutput } from './overrideResponse.ts';

export const listOverridesInput = z.strictObject({
  ...paginationInput,
  // 50 as in the reference's code (its documentation says 10).
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  namespace: ratelimitNamespaceRefSchema,
});

export const listOverridesOutput = listOutput(overrideOutput);

/** The namespace's live overrides in id order, with `ratelimit.<id>.read_override` (authorizedNamespace: 403 or 404). */
export const listOverrides = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists a namespace's overrides.", errors: [404] })
  .input(listOverridesInput)
  .output(listOverridesOutput)
  .query(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const namespace = await authorizedNamespace(ctx, input.namespace, 'read_override');
    const found = await listRatelimitOverrides(ctx.em, namespace.id, {
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
    });
    return toPage(workspaceId, found, input.limit, overrideData);
  });
