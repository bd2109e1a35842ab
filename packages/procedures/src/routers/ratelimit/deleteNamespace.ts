import { namespaceNotFound } from '@keyplane/core';
import { deleteRatelimitNamespace } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { authorizedNamespace } from './namespaces.ts';

export const deleteNamespaceInput = z.strictObject({ namespace: ratelimitNamespaceRefSchema });

export const deleteNamespaceOutput = z.object({});

/**
 * Internal (dashboard and typed client only; the reference has no public procedure for it):
 * soft-deletes a namespace, after which limiting on it answers 410 and its overrides are out of
 * reach. The namespace with `ratelimit.<id>.delete_namespace` (authorizedNamespace: 403 or 404).
 */
export const deleteNamespace = rootKeyProcedure
  .input(deleteNamespaceInput)
  .output(deleteNamespaceOutput)
  .mutation(async ({ ctx, input }) => {
    const namespace = await authorizedNamespace(ctx, input.namespace, 'delete_namespace');
    // A concurrent deletion may have won since the lookup.
    if (!(await deleteRatelimitNamespace(ctx.em, ctx.changeLog, namespace))) throw namespaceNotFound();
    return {};
  });
