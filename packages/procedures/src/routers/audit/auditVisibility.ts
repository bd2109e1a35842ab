import { isGranted } from '@keyplane/core';
import type { AuditVisibility } from '@keyplane/db';
import { grantedResourceIds, READ_ROOT_KEYS, type RootKeyPrincipal, rbacPermission } from '../../middleware/auth.ts';

/**
 * What of the audit log a root key may see: what its grants let it read (docs/contract.md#audit-log).
 * Only ids go into the log, but whose ids, and that they changed, is data of the resources too.
 */
export function auditVisibility(principal: RootKeyPrincipal): AuditVisibility {
  const reads = (permission: Parameters<typeof isGranted>[1]) => isGranted(principal.permissions, permission);
  const visibility = {
    apis: grantedResourceIds(principal, 'api', 'read_api'),
    keysOfApis: grantedResourceIds(principal, 'api', 'read_key'),
    identities: grantedResourceIds(principal, 'identity', 'read_identity'),
    namespaces: grantedResourceIds(principal, 'ratelimit', 'read_namespace'),
    endpoints: grantedResourceIds(principal, 'webhook', 'read_endpoint'),
    portals: grantedResourceIds(principal, 'portal', 'read_portal'),
    roles: reads(rbacPermission('read_role')),
    permissions: reads(rbacPermission('read_permission')),
    workspace: reads(READ_ROOT_KEYS),
  };
  // An event the log does not know the kind of shows only to a reader that may read everything.
  const everything =
    visibility.roles &&
    visibility.permissions &&
    visibility.workspace &&
    [
      visibility.apis,
      visibility.keysOfApis,
      visibility.identities,
      visibility.namespaces,
      visibility.endpoints,
      visibility.portals,
    ].every((ids) => ids === undefined);
  return { ...visibility, everything };
}
