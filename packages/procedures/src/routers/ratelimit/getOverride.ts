import { findApplicableOverride, isGranted, namespaceNotFound, overrideNotFound } from '@keyplane/core';
import { findExactOverride, findRatelimitNamespace } from '@keyplane/db';
import { z } from 'zod';
import { authorizeFound, ratelimitPermission } from '../../middleware/auth.ts';
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
 * with `ratelimit.<id>.read_override` (as authorizedNamespace: 403 or 404; the contract never masks
 * a 403 as the reference's 404 here), then the override (404).
 */
export const getOverride = rootKeyProcedure
  .meta({ public: true, description: 'Returns the override of a namespace for an identifier.', errors: [404] })
  .input(getOverrideInput)
  .output(getOverrideOutput)
  .query(async ({ ctx, input }) => {
    const read = (namespaceId: string) => ratelimitPermission(namespaceId, 'read_override');
    const found = await findRatelimitNamespace(ctx.em, ctx.rootKey.workspaceId, input.namespace);
    const namespace = authorizeFound(ctx.rootKey, {
      found: found?.deleted ? undefined : found,
      notFound: namespaceNotFound,
      required: ({ id }) => [read(id)],
      wildcards: [read('*')],
      visible: ({ id }) => isGranted(ctx.rootKey.permissions, ratelimitPermission(id, 'read_namespace')),
      named: [read(input.namespace)],
    });
    const override = await findApplicableOverride(namespace, input.identifier, (namespaceId, identifier) =>
      findExactOverride(ctx.em, namespaceId, identifier),
    );
    if (!override) throw overrideNotFound();
    return overrideData(override);
  });
