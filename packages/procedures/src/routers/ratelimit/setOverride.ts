import { setRatelimitOverride } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import {
  MAX_INT4,
  ratelimitDurationSchema,
  ratelimitIdentifierSchema,
  ratelimitNamespaceRefSchema,
} from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { requireLiveNamespace } from './namespaces.ts';

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
 * Upsert by (namespace, identifier): an existing override keeps its id. In the reference order:
 * the namespace (404, never created here), then `ratelimit.<id>.set_override` (403). Every node
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
    const namespace = await requireLiveNamespace(ctx.em, ctx.rootKey.workspaceId, input.namespace);
    requirePermissions(ctx.rootKey, [ratelimitPermission(namespace.id, 'set_override')]);
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
