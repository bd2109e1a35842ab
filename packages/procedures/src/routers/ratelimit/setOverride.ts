import { setRatelimitOverride } from '@keyplane/db';
import { z } from 'zod';
import {
  MAX_INT4,
  ratelimitDurationSchema,
  ratelimitIdentifierSchema,
  ratelimitNamespaceRefSchema,
} from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { authorizedNamespace } from './namespaces.ts';

export const setOverrideInput = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  /** Exact, or a pattern in which `*` matches any sequence. */
  identifier: ratelimitIdentifierSchema,
  /** 0 blocks every request of the identifier. */
  limit: z.number().int().min(0).max(MAX_INT4),
  duration: ratelimitDurationSchema,
});

export const setOverrideOutput = z.object({ overrideId: z.string() });

/**
 * Upsert by (namespace, identifier): an existing override keeps its id. The namespace (never
 * created here) with `ratelimit.<id>.set_override` (authorizedNamespace: 403 or 404). Every node
 * forgets its cached copy before this answers, so the next request on any node sees the change.
 */
export const setOverride = rootKeyProcedure
  .meta({
    public: true,
    description: 'Sets a different limit for an identifier or a pattern of identifiers in a namespace.',
    errors: [404, 412],
  })
  .input(setOverrideInput)
  .output(setOverrideOutput)
  .mutation(async ({ ctx, input }) => {
    const namespace = await authorizedNamespace(ctx, input.namespace, 'set_override');
    const overrideId = await setRatelimitOverride(
      ctx.em,
      ctx.changeLog,
      namespace,
      {
        identifier: input.identifier,
        limit: input.limit,
        durationMs: input.duration,
      },
      ctx.services.limits,
    );
    return { overrideId };
  });
