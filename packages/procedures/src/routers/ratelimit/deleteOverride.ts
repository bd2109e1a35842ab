import { overrideNotFound } from '@keyplane/core';
import { deleteRatelimitOverride } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitIdentifierSchema, ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { authorizedNamespace } from './namespaces.ts';

export const deleteOverrideInput = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  /** Exactly as set: a pattern deletes that pattern's override, never those it would match. */
  identifier: ratelimitIdentifierSchema,
});

export const deleteOverrideOutput = z.object({});

/** Soft-deletes. The namespace with `ratelimit.<id>.delete_override` (authorizedNamespace: 403 or 404), then the override (404). */
export const deleteOverride = rootKeyProcedure
  .meta({ public: true, description: 'Deletes an override of a namespace.', errors: [404] })
  .input(deleteOverrideInput)
  .output(deleteOverrideOutput)
  .mutation(async ({ ctx, input }) => {
    const namespace = await authorizedNamespace(ctx, input.namespace, 'delete_override');
    if (!(await deleteRatelimitOverride(ctx.em, ctx.changeLog, namespace, input.identifier))) throw overrideNotFound();
    return {};
  });
