import type { CreditsState, KeyIdentity, RatelimitConfig, RefillInterval } from '@keyplane/core';
import { permissionSlugsOf, ratelimitsOf, roleNamesOf } from './keyFragments.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

/** Everything the management API shows about a key (`KeyResponseData`), as stored. */
export interface KeyDetails {
  id: string;
  workspaceId: string;
  apiId: string;
  start: string;
  name: string | null;
  meta: Record<string, unknown> | null;
  enabled: boolean;
  createdAt: number;
  updatedAt: number | null;
  lastUsedAt: number | null;
  expires: number | null;
  credits: CreditsState;
  identity: KeyIdentity | null;
  /** Key-level limits. */
  ratelimits: RatelimitConfig[];
  /** Unique slugs, direct and through roles. */
  permissions: string[];
  roles: string[];
  /** Present only for recoverable keys. */
  ciphertext: string | null;
}

/** The refill columns of a key row, as selected by {@link refillColumns}. */
export interface RefillColumns {
  remaining: number | null;
  refillInterval: RefillInterval | null;
  refillAmount: number | null;
  refillDay: number | null;
  lastRefillAt: number | null;
}

/** Selects the credit columns of `keys` (aliased `alias`) in the shape of {@link RefillColumns}. */
export const refillColumns = (alias: string) => sql`
  ${sql.ref(`${alias}.credits_remaining`)}::float8 as remaining,
  ${sql.ref(`${alias}.refill_interval`)} as "refillInterval",
  ${sql.ref(`${alias}.refill_amount`)}::float8 as "refillAmount",
  ${sql.ref(`${alias}.refill_day`)} as "refillDay",
  ${epochMs(`${alias}.last_refill_at`)} as "lastRefillAt"`;

export function creditsStateOf(row: RefillColumns): CreditsState {
  return {
    remaining: row.remaining,
    refill:
      row.refillInterval && row.refillAmount !== null
        ? { interval: row.refillInterval, amount: row.refillAmount, refillDay: row.refillDay }
        : null,
    lastRefillAt: row.lastRefillAt,
  };
}

interface KeyDetailsRow extends RefillColumns {
  id: string;
  workspaceId: string;
  apiId: string;
  start: string;
  name: string | null;
  meta: Record<string, unknown> | null;
  enabled: boolean;
  createdAt: number;
  updatedAt: number | null;
  lastUsedAt: number | null;
  expires: number | null;
  identityId: string | null;
  externalId: string | null;
  identityMeta: Record<string, unknown> | null;
  keyRatelimits: RatelimitConfig[];
  identityRatelimits: RatelimitConfig[];
  permissions: string[];
  roles: string[];
  ciphertext: string | null;
}

/**
 * The columns of {@link KeyDetailsRow} for a `keys k` row with its live identity `i`. The shared
 * fragments are correlated subqueries: one statement answers for one key or for a page of them.
 */
const keyDetailsColumns = sql`
  k.id, k.workspace_id as "workspaceId", k.api_id as "apiId", k.start, k.name, k.meta, k.enabled,
  ${epochMs('k.created_at')} as "createdAt", ${epochMs('k.updated_at')} as "updatedAt",
  ${epochMs('k.last_used_at')} as "lastUsedAt", ${epochMs('k.expires_at')} as expires,
  ${refillColumns('k')}, k.ciphertext,
  i.id as "identityId", i.external_id as "externalId", i.meta as "identityMeta",
  ${ratelimitsOf('key_id', sql.ref('k.id'))} as "keyRatelimits",
  ${ratelimitsOf('identity_id', sql.ref('i.id'))} as "identityRatelimits",
  ${permissionSlugsOf(sql.ref('k.id'))} as permissions,
  ${roleNamesOf(sql.ref('k.id'))} as roles`;

function keyDetailsOf(row: KeyDetailsRow): KeyDetails {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    apiId: row.apiId,
    start: row.start,
    name: row.name,
    meta: row.meta,
    enabled: row.enabled,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastUsedAt: row.lastUsedAt,
    expires: row.expires,
    credits: creditsStateOf(row),
    identity:
      row.identityId && row.externalId
        ? { id: row.identityId, externalId: row.externalId, meta: row.identityMeta, ratelimits: row.identityRatelimits }
        : null,
    ratelimits: row.keyRatelimits,
    permissions: row.permissions,
    roles: row.roles,
    ciphertext: row.ciphertext,
  };
}

/**
 * A live key of the workspace, by id or by hash, with everything shown about it. Deleted keys,
 * keys of a deleted API and keys of another workspace do not exist for the caller; a deleted
 * identity counts as no identity.
 */
export async function findKeyDetails(
  em: EntityManager,
  workspaceId: string,
  lookup: { keyId: string } | { hash: string },
): Promise<KeyDetails | undefined> {
  const match = 'keyId' in lookup ? sql`k.id = ${lookup.keyId}` : sql`k.hash = ${lookup.hash}`;
  const [row] = await rows(
    em,
    sql<KeyDetailsRow>`
      select ${keyDetailsColumns}
      from keys k
      join apis a on a.id = k.api_id and a.deleted_at is null
      left join identities i on i.id = k.identity_id and i.deleted_at is null
      where ${match} and k.workspace_id = ${workspaceId} and k.deleted_at is null`,
  );
  return row ? keyDetailsOf(row) : undefined;
}

export interface KeyPageQuery extends PageQuery {
  apiId: string;
  /** Only keys of the live identity with this external id (none: no keys). */
  externalId?: string;
}

/**
 * Live keys of a live API of the workspace in id order, with everything shown about each, in ONE
 * statement whatever the page size: the page of keys is chosen first (on the `(api_id, id)`
 * index), and only those rows get their permissions, roles, identity and limits.
 */
export async function listKeyDetails(
  em: EntityManager,
  workspaceId: string,
  query: KeyPageQuery,
): Promise<KeyDetails[]> {
  const ofIdentity =
    query.externalId === undefined
      ? sql`true`
      : sql`p.identity_id = (select id from identities
          where workspace_id = ${workspaceId} and external_id = ${query.externalId} and deleted_at is null)`;
  const found = await rows(
    em,
    sql<KeyDetailsRow>`
      select ${keyDetailsColumns}
      from (
        select p.* from keys p
        join apis a on a.id = p.api_id and a.deleted_at is null
        where p.api_id = ${query.apiId} and p.workspace_id = ${workspaceId} and p.deleted_at is null
          and ${startingAt('p.id', query.fromId)} and ${ofIdentity}
          and ${containsAny(['p.id', 'p.name', 'p.start'], query.search)}
        order by p.id
        limit ${query.count}
      ) k
      left join identities i on i.id = k.identity_id and i.deleted_at is null
      order by k.id`,
  );
  return found.map(keyDetailsOf);
}
