import { recordAuditEvent } from '@keyplane/db';
import type { Context } from '../context.ts';
import type { RootKeyPrincipal } from './auth.ts';

/** Only ids go into the audit log: never key material, names or metadata a customer may consider private. */
const ID_FIELD = /Id$/;
const MAX_RESOURCES = 20;

/** The ids a change named (its input) or produced (its output), such as `{ apiId, keyId }`. */
export function resourcesOf(...payloads: unknown[]): Record<string, string> {
  const resources: Record<string, string> = {};
  for (const payload of payloads) {
    if (typeof payload !== 'object' || payload === null) continue;
    for (const [field, value] of Object.entries(payload)) {
      if (Object.keys(resources).length >= MAX_RESOURCES) return resources;
      if (ID_FIELD.test(field) && typeof value === 'string') resources[field] = value;
    }
  }
  return resources;
}

/**
 * Records a committed change. A failure to record is reported, not thrown: the change has
 * happened, and answering 500 would invite the caller to make it twice.
 */
export async function recordChange(
  ctx: Context,
  principal: RootKeyPrincipal,
  event: string,
  input: unknown,
  output: unknown,
): Promise<void> {
  try {
    await recordAuditEvent(ctx.em, {
      workspaceId: principal.workspaceId,
      rootKeyId: principal.rootKeyId,
      event,
      resources: resourcesOf(input, output),
    });
  } catch (error) {
    ctx.services.reportError('could not record an audit event', error, ctx.requestId);
  }
}
