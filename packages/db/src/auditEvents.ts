import { newId } from '@keyplane/core';
import type { RawBuilder } from 'kysely';
import type { AuditDetails } from './entities/AuditEvent.ts';
import type { PageQuery } from './listing.ts';
import { type EntityManager, sql, typed } from './sql.ts';

export type { AuditDetails, AuditFieldChange } from './entities/AuditEvent.ts';

export interface AuditEntry {
  workspaceId: string;
  rootKeyId: string | null;
  /** The person who made the change in the dashboard (their id and email then); absent for a root key. */
  actor?: { userId: string; email: string };
  /** The portal customer who made the change (docs/portal.md): their externalId and the portal. */
  portalEndUser?: { externalId: string; portalId: string };
  /** The procedure that made the change, such as `keys.createKey`. */
  event: string;
  /** The ids the change named or produced, such as `{ apiId, keyId }`; never secrets. */
  resources: Record<string, string>;
  /** The names of what it touched and each setting it changed, before and after; never secrets. */
  details?: AuditDetails;
  /** The caller's network address, where the transport knew it. */
  clientAddress?: string;
}

export interface AuditEventRecord {
  id: string;
  time: number;
  rootKeyId: string | null;
  /** The person who made the change (their id and email then); null for a root key or the CLI. */
  actorUserId: string | null;
  actorEmail: string | null;
  /** The portal customer who made the change (their externalId, and the portal); null otherwise. */
  actorExternalId: string | null;
  actorPortalId: string | null;
  event: string;
  resources: Record<string, string>;
  /** The API of the key the event names (`resources.keyId`), if it names one. */
  keyApiId: string | null;
  /** Null for events recorded before the log kept them. */
  details: AuditDetails | null;
  clientAddress: string | null;
}

export async function recordAuditEvent(em: EntityManager, entry: AuditEntry): Promise<void> {
  await typed(em)
    .insertInto('audit_events')
    .values({
      id: newId('auditEvent'),
      workspace_id: entry.workspaceId,
      time: sql`now()`,
      root_key_id: entry.rootKeyId,
      actor_user_id: entry.actor?.userId ?? null,
      actor_email: entry.actor?.email ?? null,
      actor_external_id: entry.portalEndUser?.externalId ?? null,
      actor_portal_id: entry.portalEndUser?.portalId ?? null,
      event: entry.event,
      resources: entry.resources,
      details: entry.details ?? null,
      client_address: entry.clientAddress ?? null,
    })
    .execute();
}

/**
 * The ids of one kind a reader may read: undefined for every one (a `*` grant), else those its
 * grants name (none: an empty list).
 */
export type ReadableIds = readonly string[] | undefined;

/**
 * What of the audit log a reader may see (docs/contract.md#audit-log): each event is about what it
 * changed, and shows only to a reader that may read that. An event of an API to one that may read
 * the API, of a key to one that may read the keys of its API, of an identity, namespace or webhook
 * endpoint to one that may read it (an event naming none of them: to one that may read them all),
 * of roles or permissions to one that may read those, and of the workspace itself (root keys,
 * sign-ins, the CLI) to one that may read root keys. Anything else: to one that may read everything.
 */
export interface AuditVisibility {
  apis: ReadableIds;
  /** The APIs whose keys the reader may read. */
  keysOfApis: ReadableIds;
  identities: ReadableIds;
  namespaces: ReadableIds;
  endpoints: ReadableIds;
  /** The portals the reader may read: their configuration, sessions and customers' changes. */
  portals: ReadableIds;
  roles: boolean;
  permissions: boolean;
  workspace: boolean;
  everything: boolean;
}

/** The API of the key the event names, whether or not the key is deleted (softly). */
const KEY_API = sql<string | null>`(select k.api_id from keys k
  where k.workspace_id = e.workspace_id and k.id = e.resources->>'keyId')`;

/** The namespace of the override the event names. */
const OVERRIDE_NAMESPACE = sql<string | null>`(select o.namespace_id from ratelimit_overrides o
  join ratelimit_namespaces n on n.id = o.namespace_id
  where n.workspace_id = e.workspace_id and o.id = e.resources->>'overrideId')`;

/** `id` is one of `ids`: always for undefined (every one), never for null (unknown). */
function among(id: RawBuilder<string | null>, ids: ReadableIds): RawBuilder<boolean> {
  if (ids === undefined) return sql<boolean>`true`;
  if (ids.length === 0) return sql<boolean>`false`;
  return sql<boolean>`coalesce(${id} = any(${[...ids]}::text[]), false)`;
}

const resource = (field: string) => sql<string | null>`e.resources->>${field}`;
const flag = (allowed: boolean) => (allowed ? sql<boolean>`true` : sql<boolean>`false`);

/**
 * Who may see an event, by the service that recorded it (`apis.createApi`: `apis`; `cli` for the
 * command line's). An event of any other service shows only to a reader that may read everything.
 */
const VISIBILITY_BY_SERVICE = new Map<string, (visibility: AuditVisibility) => RawBuilder<boolean>>([
  ['apis', ({ apis }) => among(resource('apiId'), apis)],
  ['keys', ({ keysOfApis }) => among(sql`coalesce(${resource('apiId')}, ${KEY_API})`, keysOfApis)],
  ['identities', ({ identities }) => among(resource('identityId'), identities)],
  [
    'ratelimit',
    ({ namespaces }) => among(sql`coalesce(${resource('namespaceId')}, ${OVERRIDE_NAMESPACE})`, namespaces),
  ],
  ['webhooks', ({ endpoints }) => among(resource('endpointId'), endpoints)],
  ['portal', ({ portals }) => among(resource('portalId'), portals)],
  [
    'permissions',
    ({ roles, permissions }) =>
      sql<boolean>`(case when e.event like '%Role%' then ${flag(roles)} else ${flag(permissions)} end)`,
  ],
  ['rootKeys', ({ workspace }) => flag(workspace)],
  // The workspace's people, administered beside its root keys.
  ['members', ({ workspace }) => flag(workspace)],
  ['dashboard', ({ workspace }) => flag(workspace)],
  // A person's sign-ins and their own account: the workspace's administration, as dashboard sign-ins are.
  ['account', ({ workspace }) => flag(workspace)],
  ['cli', ({ workspace }) => flag(workspace)],
  ['workspace', ({ workspace }) => flag(workspace)],
]);

/** The services whose events the audit log knows who may see. */
export const AUDITED_SERVICES: readonly string[] = [...VISIBILITY_BY_SERVICE.keys()];

function visibleTo(visibility: AuditVisibility): RawBuilder<boolean> {
  const cases = [...VISIBILITY_BY_SERVICE].map(
    ([service, visible]) => sql`when ${service} then ${visible(visibility)}`,
  );
  return sql<boolean>`case split_part(e.event, '.', 1) ${sql.join(cases, sql` `)} else ${flag(visibility.everything)} end`;
}

/** Which events of the audit log a list keeps. */
export interface AuditEventFilters {
  /** Only what this reader may see; undefined: everything (an operator's tools). */
  visibleTo?: AuditVisibility;
  /** Case-insensitive "contains" on the event or any of its resource ids. */
  search?: string;
  /** Only changes made with this root key. */
  rootKeyId?: string;
  /** Only changes made by this person. */
  userId?: string;
  /** Only this event, such as `keys.createKey`. */
  event?: string;
  /** Only changes that named or produced this id, whatever its kind. */
  resourceId?: string;
  /** Only changes made at or after this time (unix ms). */
  from?: number;
  /** Only changes made before this time (unix ms). */
  to?: number;
}

/** A page of the audit log: its filters, where it starts and in which order. */
export interface AuditEventQuery extends AuditEventFilters, Omit<PageQuery, 'ids' | 'search'> {
  /** `newest` (the default) pages down from the cursor, `oldest` up from it. */
  order?: 'newest' | 'oldest';
}

/** The workspace's events a query's filters keep (its cursor and order aside). */
function filteredEvents(em: EntityManager, workspaceId: string, query: AuditEventFilters) {
  let events = typed(em).selectFrom('audit_events as e').where('e.workspace_id', '=', workspaceId);
  if (query.visibleTo !== undefined) events = events.where(visibleTo(query.visibleTo));
  if (query.rootKeyId !== undefined) events = events.where('e.root_key_id', '=', query.rootKeyId);
  if (query.userId !== undefined) events = events.where('e.actor_user_id', '=', query.userId);
  if (query.event !== undefined) events = events.where('e.event', '=', query.event);
  if (query.resourceId !== undefined) {
    events = events.where(
      sql<boolean>`exists (select from jsonb_each_text(e.resources) r where r.value = ${query.resourceId})`,
    );
  }
  if (query.from !== undefined) events = events.where('e.time', '>=', new Date(query.from));
  if (query.to !== undefined) events = events.where('e.time', '<', new Date(query.to));
  if (query.search) {
    // position() rather than ilike: the search text needs no escaping of % and _.
    const needle = sql`lower(${query.search})`;
    events = events.where(
      sql<boolean>`(position(${needle} in lower(e.event)) > 0 or exists (
        select from jsonb_each_text(e.resources) r where position(${needle} in lower(r.value)) > 0))`,
    );
  }
  return events;
}

/**
 * A page of the audit log: a page holds the rows from the cursor on, in id (time) order. Each event
 * of a key carries its key's API (`keyApiId`), which the key's page needs and updates do not name.
 */
export async function listAuditEvents(
  em: EntityManager,
  workspaceId: string,
  query: AuditEventQuery,
): Promise<AuditEventRecord[]> {
  const newest = query.order !== 'oldest';
  let events = filteredEvents(em, workspaceId, query).select([
    'e.id',
    'e.time',
    'e.root_key_id',
    'e.actor_user_id',
    'e.actor_email',
    'e.actor_external_id',
    'e.actor_portal_id',
    'e.event',
    'e.resources',
    'e.details',
    'e.client_address',
    KEY_API.as('key_api_id'),
  ]);
  if (query.fromId !== undefined) events = events.where('e.id', newest ? '<=' : '>=', query.fromId);
  const found = await events
    .orderBy('e.id', newest ? 'desc' : 'asc')
    .limit(query.count)
    .execute();
  return found.map((event) => ({
    id: event.id,
    time: event.time.getTime(),
    rootKeyId: event.root_key_id,
    actorUserId: event.actor_user_id,
    actorEmail: event.actor_email,
    actorExternalId: event.actor_external_id,
    actorPortalId: event.actor_portal_id,
    event: event.event,
    resources: event.resources,
    keyApiId: event.key_api_id,
    details: event.details,
    clientAddress: event.client_address,
  }));
}

/** How many events the query's filters keep, over all pages. */
export async function countAuditEvents(
  em: EntityManager,
  workspaceId: string,
  query: AuditEventFilters,
): Promise<number> {
  const counted = await filteredEvents(em, workspaceId, query)
    .select(sql<number>`count(*)::int`.as('total'))
    .executeTakeFirstOrThrow();
  return counted.total;
}

/** The names of the events of the workspace's audit log the reader may see, for a filter to offer. */
export async function listAuditEventNames(
  em: EntityManager,
  workspaceId: string,
  visibility?: AuditVisibility,
): Promise<string[]> {
  const found = await filteredEvents(em, workspaceId, { visibleTo: visibility })
    .select('e.event')
    .distinct()
    .orderBy('e.event')
    .execute();
  return found.map((row) => row.event);
}

/**
 * The people who made the changes of the workspace's log the reader may see, each with the email
 * of their latest change, by email: for a filter to offer.
 */
export async function listAuditEventPeople(
  em: EntityManager,
  workspaceId: string,
  visibility?: AuditVisibility,
): Promise<{ userId: string; email: string }[]> {
  const found = await filteredEvents(em, workspaceId, { visibleTo: visibility })
    .where('e.actor_user_id', 'is not', null)
    .select(['e.actor_user_id', 'e.actor_email'])
    .distinctOn('e.actor_user_id')
    .orderBy('e.actor_user_id')
    .orderBy('e.id', 'desc')
    .execute();
  return found
    .map((row) => ({ userId: row.actor_user_id ?? '', email: row.actor_email ?? '' }))
    .sort((a, b) => a.email.localeCompare(b.email));
}
