import { recordAuditEvent } from '@keyplane/db';
import type { Context } from '../context.ts';
import { type AuditSnapshots, auditDetails, snapshotResources } from './auditSnapshots.ts';
import type { RootKeyPrincipal } from './auth.ts';

/**
 * The audit log keeps ids as resources, and beside them the names of what a change touched and the
 * settings it altered (auditSnapshots.ts): never key material or secrets.
 */
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
 * Inputs that name a resource by a reference rather than an `…Id` field: identities.* take
 * `identity` (its id or external id), ratelimit.* `namespace`, permissions.* `role` and
 * `permission` (an id, a name or a slug). The snapshots look each up as they look up its id.
 */
const REFERENCE_FIELDS = new Map([
  ['identity', 'identityId'],
  ['namespace', 'namespaceId'],
  ['role', 'roleId'],
  ['permission', 'permissionId'],
]);

/** members.* name a person's role (`role: 'admin'`), which is no RBAC role to look up. */
const TEAM_EVENT = /^members\./;

function snapshotReferences(event: string, input: unknown, output: unknown): Record<string, string> {
  const references = resourcesOf(input, output);
  if (typeof input !== 'object' || input === null || TEAM_EVENT.test(event)) return references;
  for (const [field, kind] of REFERENCE_FIELDS) {
    const named = (input as Record<string, unknown>)[field];
    if (typeof named === 'string' && references[kind] === undefined) references[kind] = named;
  }
  return references;
}

/**
 * The resources a change is about to touch, as they are before it, to compare with after. A failure
 * is reported and leaves the event without a comparison: it never stops the change.
 */
export async function snapshotBefore(
  ctx: Context,
  principal: RootKeyPrincipal,
  event: string,
  input: unknown,
): Promise<AuditSnapshots> {
  try {
    return await snapshotResources(ctx.em, principal.workspaceId, snapshotReferences(event, input, undefined));
  } catch (error) {
    ctx.services.reportError('could not read what an audited change touches', error, ctx.requestId);
    return new Map();
  }
}

/**
 * Records a committed change, with the names of what it touched, what it changed (against
 * `before`, from {@link snapshotBefore}) and the caller's address. A failure to record is reported,
 * not thrown: the change has happened, and answering 500 would invite the caller to make it twice.
 */
export async function recordChange(
  ctx: Context,
  principal: RootKeyPrincipal,
  event: string,
  input: unknown,
  output: unknown,
  before: AuditSnapshots = new Map(),
  extraResources: Record<string, string> = {},
): Promise<void> {
  try {
    const after = await snapshotResources(ctx.em, principal.workspaceId, snapshotReferences(event, input, output));
    await recordAuditEvent(ctx.em, {
      workspaceId: principal.workspaceId,
      rootKeyId: principal.rootKeyId,
      actor: principal.person && { userId: principal.person.userId, email: principal.person.email },
      event,
      resources: { ...resourcesOf(input, output), ...extraResources },
      details: auditDetails(before, after),
      clientAddress: ctx.clientAddress,
    });
  } catch (error) {
    ctx.services.reportError('could not record an audit event', error, ctx.requestId);
  }
}
