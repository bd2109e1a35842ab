import { isGranted, portalNotFound } from '@keyplane/core';
import { findPortal, type PortalRecord } from '@keyplane/db';
import type { Context } from '../../context.ts';
import { authorizeFound, portalPermission, type RootKeyPrincipal } from '../../middleware/auth.ts';

/**
 * A provider procedure's portal (docs/contract.md#authorization-order): the live portal on which the
 * root key holds `action`, else 403 or 404 as for every other resource.
 */
export async function loadAuthorizedPortal(
  ctx: Context & { rootKey: RootKeyPrincipal },
  portalId: string,
  action: string,
): Promise<PortalRecord> {
  return authorizeFound(ctx.rootKey, {
    found: await findPortal(ctx.em, ctx.rootKey.workspaceId, portalId),
    notFound: () => portalNotFound(portalId),
    required: (portal) => [portalPermission(portal.id, action)],
    wildcards: [portalPermission('*', action)],
    visible: (portal) => isGranted(ctx.rootKey.permissions, portalPermission(portal.id, 'read_portal')),
    named: [portalPermission(portalId, action)],
  });
}
