import { keyNotFound } from '@keyplane/core';
import { findKeyRecord, type KeyRecord, type PortalSessionPrincipal } from '@keyplane/db';
import type { Context } from '../../context.ts';

/**
 * A key of the portal's API whose identity is the session's customer; any other key (another
 * customer's, another API's, none) is the same 404, never a 403: a customer learns nothing of keys
 * that are not theirs (docs/portal.md#isolation).
 */
export async function loadCustomerKey(
  ctx: Context & { portal: PortalSessionPrincipal },
  keyId: string,
): Promise<KeyRecord> {
  const { portal } = ctx;
  const key = await findKeyRecord(ctx.em, portal.workspaceId, keyId);
  if (!key || key.apiId !== portal.apiId || portal.identityId === null || key.identityId !== portal.identityId) {
    throw keyNotFound(keyId);
  }
  return key;
}
