import { namespaceExists } from '@keyplane/core';
import { createRatelimitNamespaces, findLiveRatelimitNamespace } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import { ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createNamespaceInput = z.strictObject({ name: ratelimitNamespaceRefSchema });

export const createNamespaceOutput = z.object({ namespaceId: z.string() });

/**
 * Internal (the reference creates namespaces on first use; the dashboard creates them up front,
 * to set overrides before any traffic). 409 when the name is taken, by a live namespace or by a
 * deleted one (names stay reserved, so a limit on a deleted namespace keeps answering 410).
 */
export const createNamespace = rootKeyProcedure
  .input(createNamespaceInput)
  .output(createNamespaceOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [ratelimitPermission('*', 'create_namespace')]);
    const { workspaceId } = ctx.rootKey;
    const taken = () => namespaceExists(input.name);
    if (await findLiveRatelimitNamespace(ctx.em, workspaceId, input.name)) throw taken();
    const created = await createRatelimitNamespaces(
      ctx.em,
      ctx.changeLog,
      workspaceId,
      [input.name],
      ctx.services.limits.ratelimitNamespaces,
    );
    const namespaceId = created.get(input.name);
    if (namespaceId === undefined) throw taken();
    return { namespaceId };
  });
