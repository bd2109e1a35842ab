import { selectOverride } from '@keyplane/core';
import { findRatelimitTargets } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import { ratelimitIdentifierSchema, ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { namespaceNotFound, overrideNotFound } from './namespaces.ts';
import { overrideData, overrideOutput } from './overrideResponse.ts';

export const getOverrideInput = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  identifier: ratelimitIdentifierSchema,
});

export const getOverrideOutput = overrideOutput;

/**
 * The override that limiting would apply to the identifier: exact first, then the wildcard
 * patterns (reference §9 item 10), chosen as `ratelimit.limit` chooses. Order: the namespace
 * (404), `ratelimit.<id>.read_override` (403: the contract never masks a 403 as the reference's
 * 404 here), then the override (404).
 */
export const getOverride = rootKeyProcedure
  .meta({ public: true })
  .input(getOverrideInput)
  .output(getOverrideOutput)
  .query(async ({ ctx, input }) => {
    const [target] = await findRatelimitTargets(ctx.em, ctx.rootKey.workspaceId, [input]);
    if (!target?.namespace || target.namespace.deleted) throw namespaceNotFound();
    requirePermissions(ctx.rootKey, [ratelimitPermission(target.namespace.id, 'read_override')]);
    const override = selectOverride(target.overrides, input.identifier);
    if (!override) throw overrideNotFound();
    return overrideData(override);
  });
