import type { CreditsState, KeyIdentity, RatelimitConfig } from '@keyplane/core';
import type { Selectable } from 'kysely';
import type { Database } from './entities/database.ts';
import { permissionSlugsOf, ratelimitsOf, roleNamesOf } from './keyFragments.ts';
import { budgetedPageLength, type ChosenPage, containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, sql, typed } from './sql.ts';

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

/** The credit columns of `keys`, as {@link creditsStateOf} reads them. */
export const creditColumns = [
  'credits_remaining',
  'refill_interval',
  'refill_amount',
  'refill_day',
  'last_refill_at',
] as const;

type CreditColumns = Pick<Selectable<Database['keys']>, (typeof creditColumns)[number]>;

export function creditsStateOf(row: CreditColumns): CreditsState {
  return {
    remaining: row.credits_remaining,
    refill:
      row.refill_interval && row.refill_amount !== null
        ? { interval: row.refill_interval, amount: row.refill_amount, refillDay: row.refill_day }
        : null,
    lastRefillAt: row.last_refill_at?.getTime() ?? null,
  };
}

/**
 * What is shown of a key `k` with its live identity `i` (left-joined). The shared fragments are
 * correlated subqueries: one statement answers for one key or for a page of them.
 */
export const keyDetailsColumns = [
  'k.id',
  'k.workspace_id',
  'k.api_id',
  'k.start',
  'k.name',
  'k.meta',
  'k.enabled',
  'k.created_at',
  'k.updated_at',
  'k.last_used_at',
  'k.expires_at',
  'k.ciphertext',
  'k.credits_remaining',
  'k.refill_interval',
  'k.refill_amount',
  'k.refill_day',
  'k.last_refill_at',
  'i.id as identity_id',
  'i.external_id',
  'i.meta as identity_meta',
  ratelimitsOf('key_id', sql.ref('k.id')).as('key_ratelimits'),
  ratelimitsOf('identity_id', sql.ref('i.id')).as('identity_ratelimits'),
  permissionSlugsOf(sql.ref('k.id')).as('permissions'),
  roleNamesOf(sql.ref('k.id')).as('roles'),
] as const;

type KeyDetailsRow = Awaited<ReturnType<ReturnType<typeof findKeyDetailsQuery>['executeTakeFirstOrThrow']>>;

export function keyDetailsOf(row: KeyDetailsRow): KeyDetails {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    apiId: row.api_id,
    start: row.start,
    name: row.name,
    meta: row.meta,
    enabled: row.enabled,
    createdAt: row.created_at.getTime(),
    updatedAt: row.updated_at?.getTime() ?? null,
    lastUsedAt: row.last_used_at?.getTime() ?? null,
    expires: row.expires_at?.getTime() ?? null,
    credits: creditsStateOf(row),
    identity:
      row.identity_id && row.external_id
        ? {
            id: row.identity_id,
            externalId: row.external_id,
            meta: row.identity_meta,
            ratelimits: row.identity_ratelimits,
          }
        : null,
    ratelimits: row.key_ratelimits,
    permissions: row.permissions,
    roles: row.roles,
    ciphertext: row.ciphertext,
  };
}

const findKeyDetailsQuery = (em: EntityManager, workspaceId: string) =>
  typed(em)
    .selectFrom('keys as k')
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'k.api_id').on('a.deleted_at', 'is', null))
    .leftJoin('identities as i', (join) => join.onRef('i.id', '=', 'k.identity_id').on('i.deleted_at', 'is', null))
    .select(keyDetailsColumns)
    .where('k.workspace_id', '=', workspaceId)
    .where('k.deleted_at', 'is', null);

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
  const query = findKeyDetailsQuery(em, workspaceId);
  const row = await ('keyId' in lookup
    ? query.where('k.id', '=', lookup.keyId)
    : query.where('k.hash', '=', lookup.hash)
  ).executeTakeFirst();
  return row && keyDetailsOf(row);
}

export interface KeyPageQuery extends PageQuery {
  apiId: string;
  /** Only keys of the live identity with this external id (none: no keys). */
  externalId?: string;
}

/**
 * Live keys of a live API of the workspace in id order, with everything shown about each: at most
 * `query.count - 1` keys whose details take at most `maxBytes` between them (one key at least,
 * whatever it carries). The candidates are chosen first (on the `(api_id, id)` index), and only
 * they get their permissions, roles, identity and limits; the database weighs each candidate's
 * details, and only the keys that fit the page are read.
 */
export async function listKeyDetails(
  em: EntityManager,
  workspaceId: string,
  query: KeyPageQuery,
  maxBytes: number,
): Promise<ChosenPage<KeyDetails>> {
  const db = typed(em);
  let page = db
    .selectFrom('keys as p')
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'p.api_id').on('a.deleted_at', 'is', null))
    .selectAll('p')
    .where('p.api_id', '=', query.apiId)
    .where('p.workspace_id', '=', workspaceId)
    .where('p.deleted_at', 'is', null)
    .where(startingAt('p.id', query.fromId))
    .where(containsAny(['p.id', 'p.name', 'p.start'], query.search));
  if (query.externalId !== undefined) {
    const identity = db
      .selectFrom('identities')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('external_id', '=', query.externalId)
      .where('deleted_at', 'is', null);
    page = page.where('p.identity_id', '=', identity);
  }
  const details = (candidates: typeof page) =>
    db
      .selectFrom(candidates.as('k'))
      .leftJoin('identities as i', (join) => join.onRef('i.id', '=', 'k.identity_id').on('i.deleted_at', 'is', null))
      .select(keyDetailsColumns);
  const weighed = await db
    .selectFrom(details(page.orderBy('p.id').limit(query.count)).as('d'))
    .select(['d.id', sql<number>`octet_length(row_to_json(d)::text)`.as('bytes')])
    .orderBy('d.id')
    .execute();
  const length = budgetedPageLength(
    weighed.map((candidate) => candidate.bytes),
    query.count - 1,
    maxBytes,
  );
  const ids = weighed.slice(0, length).map((candidate) => candidate.id);
  const found =
    ids.length === 0
      ? []
      : await details(page.where('p.id', 'in', ids))
          .orderBy('k.id')
          .execute();
  return { rows: found.map(keyDetailsOf), nextId: weighed[length]?.id };
}
