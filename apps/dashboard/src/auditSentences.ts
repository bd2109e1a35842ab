import { formatDuration, formatNumber, formatTime } from './format.ts';

/** An audit event as audit.listEvents answers it (the part a sentence needs). */
export interface AuditEventFacts {
  event: string;
  resources: Record<string, string>;
  details: {
    names?: Record<string, string>;
    changes?: { resource: string; field: string; before?: unknown; after?: unknown }[];
  } | null;
}

/** Who made a change, as audit.listEvents answers it. */
export type AuditActor =
  | { type: 'person'; userId: string; email: string }
  | { type: 'rootKey'; rootKeyId: string }
  | { type: 'cli' }
  | { type: 'portalEndUser'; externalId: string; portalId: string };

/**
 * The actor as a sentence starts: a person by their email (as it was when they made the change),
 * a root key by its name (`rootKeyNames`, else its id), the command line as such, and a customer
 * acting in the customer portal by their externalId (docs/portal.md).
 */
export function auditActorName(actor: AuditActor, rootKeyNames: ReadonlyMap<string, string>): string {
  if (actor.type === 'person') return actor.email;
  if (actor.type === 'rootKey') return rootKeyNames.get(actor.rootKeyId) ?? actor.rootKeyId;
  // A customer in a customer key portal (docs/portal.md), by the externalId the provider knows them by.
  if (actor.type === 'portalEndUser') return `Portal customer ${actor.externalId}`;
  return 'The CLI';
}

/** The id behind the actor's name, for a tooltip and the export: the person's, the root key's, or the portal's. */
export function auditActorId(actor: AuditActor): string | undefined {
  if (actor.type === 'person') return actor.userId;
  if (actor.type === 'rootKey') return actor.rootKeyId;
  if (actor.type === 'portalEndUser') return actor.portalId;
  return undefined;
}

/** What each kind of id is called in a sentence. */
const NOUNS: Record<string, string> = {
  apiId: 'API',
  keyId: 'key',
  identityId: 'identity',
  rootKeyId: 'root key',
  namespaceId: 'namespace',
  endpointId: 'webhook endpoint',
  portalId: 'portal',
  roleId: 'role',
  permissionId: 'permission',
  overrideId: 'override',
  deliveryId: 'delivery',
  userId: 'member',
  invitationId: 'invitation',
};

/**
 * Each procedure's sentence: a verb, the resource it is about (by the kind of its id) and, where it
 * says more, where that resource is. Procedures not listed are told from their name.
 */
const SENTENCES: Record<string, { verb: string; subject: string; place?: string }> = {
  'apis.createApi': { verb: 'created', subject: 'apiId' },
  'apis.updateApi': { verb: 'changed', subject: 'apiId' },
  'apis.deleteApi': { verb: 'deleted', subject: 'apiId' },
  'keys.createKey': { verb: 'created', subject: 'keyId', place: 'apiId' },
  'keys.updateKey': { verb: 'changed', subject: 'keyId' },
  'keys.deleteKey': { verb: 'deleted', subject: 'keyId' },
  'keys.rerollKey': { verb: 'rerolled', subject: 'keyId' },
  'keys.updateCredits': { verb: 'changed the credits of', subject: 'keyId' },
  'keys.addRoles': { verb: 'added roles to', subject: 'keyId' },
  'keys.removeRoles': { verb: 'removed roles from', subject: 'keyId' },
  'keys.setRoles': { verb: 'set the roles of', subject: 'keyId' },
  'keys.addPermissions': { verb: 'added permissions to', subject: 'keyId' },
  'keys.removePermissions': { verb: 'removed permissions from', subject: 'keyId' },
  'keys.setPermissions': { verb: 'set the permissions of', subject: 'keyId' },
  'identities.createIdentity': { verb: 'created', subject: 'identityId' },
  'identities.updateIdentity': { verb: 'changed', subject: 'identityId' },
  'identities.deleteIdentity': { verb: 'deleted', subject: 'identityId' },
  'rootKeys.createRootKey': { verb: 'created', subject: 'rootKeyId' },
  'rootKeys.updateRootKey': { verb: 'changed', subject: 'rootKeyId' },
  'rootKeys.revokeRootKey': { verb: 'revoked', subject: 'rootKeyId' },
  'ratelimit.createNamespace': { verb: 'created', subject: 'namespaceId' },
  'ratelimit.deleteNamespace': { verb: 'deleted', subject: 'namespaceId' },
  'ratelimit.setOverride': { verb: 'set an override in', subject: 'namespaceId' },
  'ratelimit.deleteOverride': { verb: 'deleted an override in', subject: 'namespaceId' },
  'permissions.createRole': { verb: 'created', subject: 'roleId' },
  'permissions.deleteRole': { verb: 'deleted', subject: 'roleId' },
  'permissions.setRolePermissions': { verb: 'set the permissions of', subject: 'roleId' },
  'permissions.createPermission': { verb: 'created', subject: 'permissionId' },
  'permissions.deletePermission': { verb: 'deleted', subject: 'permissionId' },
  'webhooks.createEndpoint': { verb: 'created', subject: 'endpointId' },
  'webhooks.updateEndpoint': { verb: 'changed', subject: 'endpointId' },
  'webhooks.deleteEndpoint': { verb: 'deleted', subject: 'endpointId' },
  'webhooks.rotateSecret': { verb: 'rotated the signing secret of', subject: 'endpointId' },
  'webhooks.sendTest': { verb: 'sent a test event to', subject: 'endpointId' },
  'webhooks.redeliver': { verb: 'redelivered an event to', subject: 'endpointId' },
  // The audit log names people and invitations by their email address.
  'members.inviteMember': { verb: 'sent', subject: 'invitationId' },
  'members.revokeInvitation': { verb: 'revoked', subject: 'invitationId' },
  'members.updateMember': { verb: 'changed the role of', subject: 'userId' },
  'members.removeMember': { verb: 'removed', subject: 'userId' },
  'members.createPasswordReset': { verb: 'issued a password reset link for', subject: 'userId' },
};

/** Sentences that name no resource. */
const PLAIN: Record<string, string> = {
  'dashboard.signIn': 'signed in to the dashboard',
  'workspace.deleteWorkspace': 'deleted the workspace',
};

/** "rerollKey" → "reroll key": what a procedure not listed did, from its name. */
function fromName(event: string): string {
  const name = event.slice(event.indexOf('.') + 1);
  return `called ${name.replace(/([A-Z])/g, ' $1').toLowerCase()}`;
}

/** A resource in a sentence: its name when the event kept one, else its id. */
function resourceName(facts: AuditEventFacts, kind: string): string | undefined {
  const name = facts.details?.names?.[kind];
  if (name) return `“${name}”`;
  const id = facts.resources[kind];
  return id;
}

/**
 * What the actor did, as the rest of a sentence starting with their name: "created key
 * “checkout” in API “billing”", "changed key “checkout-v2”".
 */
export function auditPredicate(facts: AuditEventFacts): string {
  const plain = PLAIN[facts.event];
  if (plain) return plain;
  const sentence = SENTENCES[facts.event];
  if (!sentence) return fromName(facts.event);
  const subject = resourceName(facts, sentence.subject);
  const noun = NOUNS[sentence.subject] ?? 'resource';
  const place = sentence.place ? resourceName(facts, sentence.place) : undefined;
  const placeText = place ? ` in ${NOUNS[sentence.place ?? ''] ?? ''} ${place}` : '';
  return `${sentence.verb} ${noun}${subject ? ` ${subject}` : ''}${placeText}`;
}

/** Settings by name, as a sentence says them. */
const FIELD_LABELS: Record<string, string> = {
  name: 'name',
  enabled: 'enabled',
  expires: 'expiry',
  credits: 'credits',
  refill: 'refill',
  ratelimits: 'rate limits',
  roles: 'roles',
  permissions: 'permissions',
  identity: 'identity',
  meta: 'meta',
  keyAuth: 'key authentication',
  encryption: 'encryption',
  defaultPrefix: 'default prefix',
  defaultBytes: 'default length in bytes',
  deleteProtection: 'delete protection',
  revoked: 'revoked',
  url: 'URL',
  description: 'description',
  eventTypes: 'event types',
  apiIds: 'APIs',
  creditsLowThreshold: 'low-credits threshold',
  creditsLowPercent: 'low-credits percentage',
  expiringNoticeMs: 'expiry notice',
  role: 'role',
};

/** A setting's value in words: times as dates, no value as "none", unlimited credits as such. */
export function formatAuditValue(field: string, value: unknown): string {
  if (value === null || value === undefined) return field === 'credits' ? 'unlimited' : 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (field === 'expires' && typeof value === 'number') return formatTime(value);
  if (field === 'expiringNoticeMs' && typeof value === 'number') return formatDuration(value);
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(String).join(', ');
  return `“${String(value)}”`;
}

export interface AuditChangeLine {
  field: string;
  label: string;
  before: string;
  after: string;
}

/** Each setting the event changed: its name and its value before and after. */
export function auditChanges(facts: AuditEventFacts): AuditChangeLine[] {
  return (facts.details?.changes ?? []).map((change) => ({
    field: change.field,
    label: FIELD_LABELS[change.field] ?? change.field,
    before: formatAuditValue(change.field, change.before),
    after: formatAuditValue(change.field, change.after),
  }));
}

/** The whole entry as one sentence: "bootstrap changed key “a”: name from “a” to “b”; enabled from yes to no." */
export function auditSentence(actor: string, facts: AuditEventFacts): string {
  const changes = auditChanges(facts);
  const said = `${actor} ${auditPredicate(facts)}`;
  if (changes.length === 0) return `${said}.`;
  return `${said}: ${changes.map((change) => `${change.label} from ${change.before} to ${change.after}`).join('; ')}.`;
}
