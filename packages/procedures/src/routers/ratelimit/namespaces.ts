import { isGranted, namespaceNotFound } from '@keyplane/core';
import { findLiveRatelimitNamespace, type RatelimitNamespaceRecord } from '@keyplane/db';
import type { Context } from '../../context.ts';
import { authorizeFound, type RootKeyPrincipal, ratelimitPermission } from '../../middleware/auth.ts';

/**
 * The workspace's live namespace with this id or name, on which the root key may `action`
 * (docs/contract.md#authorization-order): 404 only for a caller that could act on it if it existed
 * (`ratelimit.*.<action>`, or the grant on the id it named); to others a missing namespace and one
 * they may not read (`read_namespace`) are the same 403, naming the wildcard.
 */
export async function authorizedNamespace(
  ctx: Pick<Context, 'em'> & { rootKey: RootKeyPrincipal },
  namespace: string,
  action: string,
): Promise<RatelimitNamespaceRecord> {
  return authorizeFound(ctx.rootKey, {
    found: await findLiveRatelimitNamespace(ctx.em, ctx.rootKey.workspaceId, namespace),
    notFound: namespaceNotFound,
    required: (found) => [ratelimitPermission(found.id, action)],
    wildcards: [ratelimitPermission('*', action)],
    visible: (found) => isGranted(ctx.rootKey.permissions, ratelimitPermission(found.id, 'read_namespace')),
    named: [ratelimitPermission(namespace, action)],
  });
}
