import {
  type AuditDetails,
  type AuditFieldChange,
  type EntityManager,
  findApi,
  findIdentity,
  findInvitation,
  findKeyDetails,
  findMembership,
  findPermission,
  findRatelimitNamespace,
  findRole,
  findUser,
  findWebhookEndpoint,
  listRootKeys,
} from '@keyplane/db';

/**
 * A resource as the audit log compares it: its name and the settings an operator audits. Never key
 * material or secrets; meta is kept as its JSON text, cut to {@link MAX_TEXT}.
 */
export interface AuditSnapshot {
  name: string | null;
  fields: Record<string, unknown>;
}

/** Snapshots by `<kind>:<id>`, the kind being the id's field (`keyId`, `apiId`, …). */
export type AuditSnapshots = Map<string, AuditSnapshot>;

const MAX_TEXT = 500;

const text = (value: unknown) => {
  if (value === null || value === undefined) return null;
  const json = JSON.stringify(value);
  return json.length > MAX_TEXT ? `${json.slice(0, MAX_TEXT)}…` : json;
};

const limits = (ratelimits: readonly { name: string; limit: number; durationMs: number }[]) =>
  ratelimits.map(({ name, limit, durationMs }) => `${name}: ${limit} per ${durationMs} ms`).sort();

type Loader = (em: EntityManager, workspaceId: string, id: string) => Promise<AuditSnapshot | undefined>;

const LOADERS = new Map<string, Loader>([
  [
    'keyId',
    async (em, workspaceId, keyId) => {
      const key = await findKeyDetails(em, workspaceId, { keyId });
      if (!key) return undefined;
      const refill = key.credits.refill;
      return {
        name: key.name,
        fields: {
          name: key.name,
          enabled: key.enabled,
          expires: key.expires,
          credits: key.credits.remaining,
          refill: refill
            ? `${refill.amount} ${refill.interval}${refill.refillDay ? ` on day ${refill.refillDay}` : ''}`
            : null,
          ratelimits: limits(key.ratelimits),
          roles: [...key.roles].sort(),
          permissions: [...key.permissions].sort(),
          identity: key.identity?.externalId ?? null,
          meta: text(key.meta),
        },
      };
    },
  ],
  [
    'apiId',
    async (em, workspaceId, apiId) => {
      const api = await findApi(em, workspaceId, apiId);
      if (!api) return undefined;
      return {
        name: api.name,
        fields: {
          name: api.name,
          keyAuth: api.keyAuthEnabled,
          encryption: api.encryptionEnabled,
          defaultPrefix: api.defaultPrefix,
          defaultBytes: api.defaultBytes,
          deleteProtection: api.deleteProtection,
        },
      };
    },
  ],
  [
    'identityId',
    async (em, workspaceId, identityId) => {
      const identity = await findIdentity(em, workspaceId, identityId);
      if (!identity) return undefined;
      return {
        name: identity.externalId,
        fields: { meta: text(identity.meta), ratelimits: limits(identity.ratelimits) },
      };
    },
  ],
  [
    'namespaceId',
    async (em, workspaceId, namespace) => {
      const found = await findRatelimitNamespace(em, workspaceId, namespace);
      return found && { name: found.name, fields: { name: found.name } };
    },
  ],
  [
    'roleId',
    async (em, workspaceId, role) => {
      const found = await findRole(em, workspaceId, role);
      if (!found) return undefined;
      const permissions = found.permissions.map(({ slug }) => slug).sort();
      return { name: found.name, fields: { description: found.description ?? null, permissions } };
    },
  ],
  [
    'permissionId',
    async (em, workspaceId, permission) => {
      const found = await findPermission(em, workspaceId, permission);
      return found && { name: found.slug, fields: { name: found.name, description: found.description ?? null } };
    },
  ],
  [
    'rootKeyId',
    async (em, workspaceId, rootKeyId) => {
      const rootKey = (await listRootKeys(em, workspaceId)).find((candidate) => candidate.rootKeyId === rootKeyId);
      if (!rootKey) return undefined;
      return {
        name: rootKey.name,
        fields: {
          name: rootKey.name,
          permissions: [...rootKey.permissions].sort(),
          expires: rootKey.expiresAt,
          revoked: rootKey.revokedAt !== null,
        },
      };
    },
  ],
  [
    'endpointId',
    async (em, workspaceId, endpointId) => {
      const endpoint = await findWebhookEndpoint(em, workspaceId, endpointId);
      if (!endpoint) return undefined;
      return {
        name: endpoint.url,
        fields: {
          url: endpoint.url,
          description: endpoint.description,
          eventTypes: [...endpoint.eventTypes].sort(),
          apiIds: endpoint.apiIds,
          enabled: endpoint.enabled,
          creditsLowThreshold: endpoint.creditsLowThreshold,
          creditsLowPercent: endpoint.creditsLowPercent,
          expiringNoticeMs: endpoint.expiringNoticeMs,
        },
      };
    },
  ],
  [
    // A person by their email and role in the workspace (members.*): a role change shows as before and after.
    'userId',
    async (em, workspaceId, userId) => {
      // Only a member of the workspace: nothing of another workspace's people reaches its log.
      const membership = await findMembership(em, workspaceId, userId);
      const user = membership && (await findUser(em, userId));
      return user && { name: user.email, fields: { role: membership.role } };
    },
  ],
  [
    // Never the link: only its hash is stored, and the snapshot reads neither.
    'invitationId',
    async (em, workspaceId, invitationId) => {
      const invitation = await findInvitation(em, workspaceId, invitationId);
      return invitation && { name: invitation.email, fields: { role: invitation.role, revoked: invitation.revoked } };
    },
  ],
]);

/** The resources an audit event names (`resourcesOf` its input and output), as snapshots. */
export async function snapshotResources(
  em: EntityManager,
  workspaceId: string,
  resources: Record<string, string>,
): Promise<AuditSnapshots> {
  const snapshots: AuditSnapshots = new Map();
  for (const [kind, id] of Object.entries(resources)) {
    const load = LOADERS.get(kind);
    const snapshot = load ? await load(em, workspaceId, id) : undefined;
    if (snapshot) snapshots.set(`${kind}:${id}`, snapshot);
  }
  return snapshots;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * What an event says besides its ids: the names of what it touched (after the change, or before it
 * for what it deleted) and each audited setting that differs between the two snapshots.
 */
export function auditDetails(before: AuditSnapshots, after: AuditSnapshots): AuditDetails {
  const names: Record<string, string> = {};
  const changes: AuditFieldChange[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const resource = key.slice(0, key.indexOf(':'));
    const then = before.get(key);
    const now = after.get(key);
    const name = now?.name ?? then?.name;
    if (name) names[resource] = name;
    if (!then || !now) continue;
    for (const field of Object.keys({ ...then.fields, ...now.fields })) {
      if (!same(then.fields[field], now.fields[field])) {
        changes.push({ resource, field, before: then.fields[field] ?? null, after: now.fields[field] ?? null });
      }
    }
  }
  return { names, changes };
}
