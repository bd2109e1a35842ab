import { overrideNotFound } from '@keyplane/core';
import { deleteRatelimitOverride } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import { ratelimitIdentifierSchema, ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { requireLiveNamespace } from './namespaces.ts';

export const deleteOverrideInput = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  /** Exactly as set: a pattern deletes that pattern's override, never those it would match. */
  identifier: ratelimitIdentifierSchema,
});

export const deleteOverrideOutput = z.object({});

/** Soft-deletes. In the reference order: the namespace (404), `ratelimit.<id>.delete_override` (403), the override (404). */
export const deleteOverride = rootKeyProcedure
  .meta({ public: true, description: 'Deletes an override of a namespace.', errors: [404] })
  .input(deleteOverrideInput)
  .output(deleteOverrideOutput)
  .mutation(async ({ ctx, input }) => {
    const namespace = await requireLiveNamespace(ctx.em, ctx.rootKey.workspaceId, input.namespace);
    requirePermissions(ctx.rootKey, [ratelimitPermission(namespace.id, 'delete_override')]);
    if (!(await deleteRatelimitOverride(ctx.em, ctx.changeLog, namespace, input.identifier))) throw overrideNotFound();
    return {};
  });
