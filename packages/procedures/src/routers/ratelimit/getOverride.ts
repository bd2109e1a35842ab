import { findApplicableOverride, namespaceNotFound, overrideNotFound } from '@keyplane/core';
import { findExactOverride, findRatelimitNamespace } from '@keyplane/db';
import { z } from 'zod';
import { ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import { ratelimitIdentifierSchema, ratelimitNamespaceRefSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { overrideData, overrideOutput } from './overrideResponse.ts';

export const getOverrideInput = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  identifier: ratelimitIdentifierSchema,
});

export const getOverrideOutput = overrideOutput;

/**
 * The override that limiting would apply to the identifier: exact first, then the wildcard
 * patterns (docs/contract.md#overrides), chosen as `ratelimit.limit` chooses. Order: the namespace
 * (404), `ratelimit.<id>.read_override` (403: the contract never masks a 403 as the reference's
 * 404 here), then the override (404).
 */
export const getOverride = rootKeyProcedure
  .meta({ public: true, description: 'Returns the override of a namespace for an identifier.', errors: [404] })
  .input(getOverrideInput)
  .output(getOverrideOutput)
  .query(async ({ ctx, input }) => {
    const namespace = await findRatelimitNamespace(ctx.em, ctx.rootKey.workspaceId, input.namespace);
    if (!namespace || namespace.deleted) throw namespaceNotFound();
    requirePermissions(ctx.rootKey, [ratelimitPermission(namespace.id, 'read_override')]);
    const override = await findApplicableOverride(namespace, input.identifier, (namespaceId, identifier) =>
      findExactOverride(ctx.em, namespaceId, identifier),
    );
    if (!override) throw overrideNotFound();
    return overrideData(override);
  });
