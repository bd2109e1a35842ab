import { newId } from '@keyplane/core';
import type { PortalKeyPolicy } from './entities/Portal.ts';
import { RowExists } from './errors.ts';
import { amongIds, startingAt } from './listing.ts';
import { type EntityManager, rows, sql, typed } from './sql.ts';

export type { PortalKeyPolicy } from './entities/Portal.ts';

/** A live portal as the provider's procedures show it (docs/portal.md). */
export interface PortalRecord {
  id: string;
  workspaceId: string;
  apiId: string;
  displayName: string;
  slug: string;
  logoUrl: string | null;
  primaryColor: string | null;
  supportUrl: string | null;
  enabled: boolean;
  keyPolicy: PortalKeyPolicy;
  createdAt: number;
  updatedAt: number | null;
}

export interface NewPortal {
  workspaceId: string;
  apiId: string;
  displayName: string;
  slug: string;
  logoUrl: string | null;
  primaryColor: string | null;
  supportUrl: string | null;
  enabled: boolean;
  keyPolicy: PortalKeyPolicy;
}

/** What portal.updatePortal changes: an absent field stays as it is. */
export type PortalChanges = Partial<Omit<NewPortal, 'workspaceId' | 'apiId'>>;

const PORTAL_COLUMNS = [
  'p.id',
  'p.workspace_id',
  'p.api_id',
  'p.display_name',
  'p.slug',
  'p.logo_url',
  'p.primary_color',
  'p.support_url',
  'p.enabled',
  'p.key_policy',
  'p.created_at',
  'p.updated_at',
] as const;

type PortalRow = {
  id: string;
  workspace_id: string;
  api_id: string;
  display_name: string;
  slug: string;
  logo_url: string | null;
  primary_color: string | null;
  support_url: string | null;
  enabled: boolean;
  key_policy: PortalKeyPolicy;
  created_at: Date;
  updated_at: Date | null;
};

const portalOf = (row: PortalRow): PortalRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  apiId: row.api_id,
  displayName: row.display_name,
  slug: row.slug,
  logoUrl: row.logo_url,
  primaryColor: row.primary_color,
  supportUrl: row.support_url,
  enabled: row.enabled,
  keyPolicy: row.key_policy,
  createdAt: row.created_at.getTime(),
  updatedAt: row.updated_at?.getTime() ?? null,
});

/** The live portals of the workspace whose API is live too. */
const livePortals = (em: EntityManager, workspaceId: string) =>
  typed(em)
    .selectFrom('portals as p')
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'p.api_id').on('a.deleted_at', 'is', null))
    .where('p.workspace_id', '=', workspaceId)
    .where('p.deleted_at', 'is', null);

const isSlugTaken = (error: unknown) =>
  typeof error === 'object' &&
  error !== null &&
  (error as { constraint?: string }).constraint === 'portals_live_slug_unique';

/** Creates a portal; RowExists when a live portal of the workspace has the slug. */
export async function createPortal(em: EntityManager, portal: NewPortal): Promise<string> {
  const id = newId('portal');
  try {
    await typed(em)
      .insertInto('portals')
      .values({
        id,
        workspace_id: portal.workspaceId,
        api_id: portal.apiId,
        display_name: portal.displayName,
        slug: portal.slug,
        logo_url: portal.logoUrl,
        primary_color: portal.primaryColor,
        support_url: portal.supportUrl,
        enabled: portal.enabled,
        key_policy: portal.keyPolicy,
        created_at: sql`now()`,
      })
      .execute();
  } catch (error) {
    if (isSlugTaken(error)) throw new RowExists('portal', portal.slug);
    throw error;
  }
  return id;
}

export async function findPortal(
  em: EntityManager,
  workspaceId: string,
  portalId: string,
): Promise<PortalRecord | undefined> {
  const found = await livePortals(em, workspaceId)
    .select(PORTAL_COLUMNS)
    .where('p.id', '=', portalId)
    .executeTakeFirst();
  return found && portalOf(found);
}

/** A page of the workspace's live portals in id order, of one API or of all. */
export async function listPortals(
  em: EntityManager,
  workspaceId: string,
  query: { apiId?: string; ids?: readonly string[]; fromId?: string; count: number },
): Promise<PortalRecord[]> {
  let select = livePortals(em, workspaceId)
    .select(PORTAL_COLUMNS)
    .where(startingAt('p.id', query.fromId))
    .where(amongIds('p.id', query.ids));
  if (query.apiId !== undefined) select = select.where('p.api_id', '=', query.apiId);
  const found = await select.orderBy('p.id').limit(query.count).execute();
  return found.map(portalOf);
}

/**
 * Changes a live portal; false when there is none. Disabling it ends its sessions: none may act
 * through a portal that is off (they are refused by the lookup too, on every request).
 */
export async function updatePortal(
  em: EntityManager,
  workspaceId: string,
  portalId: string,
  changes: PortalChanges,
): Promise<boolean> {
  try {
    const updated = await typed(em)
      .updateTable('portals')
      .set({
        ...(changes.displayName !== undefined ? { display_name: changes.displayName } : {}),
        ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
        ...(changes.logoUrl !== undefined ? { logo_url: changes.logoUrl } : {}),
        ...(changes.primaryColor !== undefined ? { primary_color: changes.primaryColor } : {}),
        ...(changes.supportUrl !== undefined ? { support_url: changes.supportUrl } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
        ...(changes.keyPolicy !== undefined ? { key_policy: changes.keyPolicy } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', portalId)
      .where('workspace_id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return updated !== undefined;
  } catch (error) {
    if (isSlugTaken(error) && changes.slug !== undefined) throw new RowExists('portal', changes.slug);
    throw error;
  }
}

/** Deletes a live portal (softly) and ends its sessions, in one transaction; false when there is none. */
export async function deletePortal(em: EntityManager, workspaceId: string, portalId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .updateTable('portals')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', portalId)
      .where('workspace_id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!deleted) return false;
    await typed(tx)
      .updateTable('portal_sessions')
      .set({ revoked_at: sql`now()`, updated_at: sql`now()` })
      .where('portal_id', '=', portalId)
      .where('revoked_at', 'is', null)
      .execute();
    return true;
  });
}

export interface NewPortalSession {
  workspaceId: string;
  portalId: string;
  externalId: string;
  scopes: readonly string[];
  preview: boolean;
  returnUrl: string | null;
  codeHash: string;
  codeExpiresAt: Date;
  createdByRootKeyId: string | null;
}

export async function createPortalSession(em: EntityManager, session: NewPortalSession): Promise<string> {
  const id = newId('portalSession');
  await typed(em)
    .insertInto('portal_sessions')
    .values({
      id,
      workspace_id: session.workspaceId,
      portal_id: session.portalId,
      external_id: session.externalId,
      scopes: [...session.scopes],
      preview: session.preview,
      return_url: session.returnUrl,
      code_hash: session.codeHash,
      code_expires_at: session.codeExpiresAt,
      created_by_root_key_id: session.createdByRootKeyId,
      created_at: sql`now()`,
    })
    .execute();
  return id;
}

/** A portal session as the provider's listing shows it: never its code or token. */
export interface PortalSessionRecord {
  id: string;
  portalId: string;
  externalId: string;
  scopes: string[];
  preview: boolean;
  returnUrl: string | null;
  createdByRootKeyId: string | null;
  createdAt: number;
  exchangedAt: number | null;
  expiresAt: number;
  revokedAt: number | null;
}

/** A page of a portal's sessions in id order, of one customer or of all. */
export async function listPortalSessions(
  em: EntityManager,
  workspaceId: string,
  query: { portalId: string; externalId?: string; fromId?: string; count: number },
): Promise<PortalSessionRecord[]> {
  let select = typed(em)
    .selectFrom('portal_sessions as s')
    .select([
      's.id',
      's.portal_id',
      's.external_id',
      's.scopes',
      's.preview',
      's.return_url',
      's.created_by_root_key_id',
      's.created_at',
      's.exchanged_at',
      's.code_expires_at',
      's.access_expires_at',
      's.revoked_at',
    ])
    .where('s.workspace_id', '=', workspaceId)
    .where('s.portal_id', '=', query.portalId)
    .where(startingAt('s.id', query.fromId));
  if (query.externalId !== undefined) select = select.where('s.external_id', '=', query.externalId);
  const found = await select.orderBy('s.id').limit(query.count).execute();
  return found.map((row) => ({
    id: row.id,
    portalId: row.portal_id,
    externalId: row.external_id,
    scopes: row.scopes,
    preview: row.preview,
    returnUrl: row.return_url,
    createdByRootKeyId: row.created_by_root_key_id,
    createdAt: row.created_at.getTime(),
    exchangedAt: row.exchanged_at?.getTime() ?? null,
    expiresAt: (row.access_expires_at ?? row.code_expires_at).getTime(),
    revokedAt: row.revoked_at?.getTime() ?? null,
  }));
}

/** Ends every live session of one customer on a portal; how many it ended. */
export async function revokePortalSessions(
  em: EntityManager,
  workspaceId: string,
  portalId: string,
  externalId: string,
): Promise<number> {
  const revoked = await typed(em)
    .updateTable('portal_sessions')
    .set({ revoked_at: sql`now()`, updated_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('portal_id', '=', portalId)
    .where('external_id', '=', externalId)
    .where('revoked_at', 'is', null)
    .where(sql<boolean>`coalesce(access_expires_at, code_expires_at) > now()`)
    .returning('id')
    .execute();
  return revoked.length;
}

/** Ends every session of the customer with this externalId on any portal of the workspace (its identity was deleted). */
export async function revokeSessionsOfCustomer(
  em: EntityManager,
  workspaceId: string,
  externalId: string,
): Promise<void> {
  await typed(em)
    .updateTable('portal_sessions')
    .set({ revoked_at: sql`now()`, updated_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('external_id', '=', externalId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Uses a session's code, once: the session it opened gets the access token (its hash) until
 * `accessExpiresAt`, in one statement, so that two exchanges of one code cannot both succeed.
 * Undefined for a code that is unknown, used, expired, revoked, or whose portal is gone or off.
 */
export async function exchangePortalCode(
  em: EntityManager,
  codeHash: string,
  access: { tokenHash: string; expiresAt: Date },
): Promise<{ sessionId: string; workspaceId: string; portalId: string; externalId: string } | undefined> {
  const exchanged = await typed(em)
    .updateTable('portal_sessions as s')
    .set({
      access_token_hash: access.tokenHash,
      access_expires_at: access.expiresAt,
      exchanged_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('s.code_hash', '=', codeHash)
    .where('s.exchanged_at', 'is', null)
    .where('s.revoked_at', 'is', null)
    .where('s.code_expires_at', '>', sql<Date>`now()`)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('portals as p')
          .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'p.api_id').on('a.deleted_at', 'is', null))
          .select('p.id')
          .whereRef('p.id', '=', 's.portal_id')
          .where('p.deleted_at', 'is', null)
          .where('p.enabled', '=', true),
      ),
    )
    .returning(['s.id', 's.workspace_id', 's.portal_id', 's.external_id'])
    .executeTakeFirst();
  return (
    exchanged && {
      sessionId: exchanged.id,
      workspaceId: exchanged.workspace_id,
      portalId: exchanged.portal_id,
      externalId: exchanged.external_id,
    }
  );
}

/** A live portal session, as every customer request reads it (docs/portal.md#sessions). */
export interface PortalSessionPrincipal {
  sessionId: string;
  workspaceId: string;
  portalId: string;
  apiId: string;
  externalId: string;
  scopes: string[];
  expiresAt: number;
  returnUrl: string | null;
  /** The customer's live identity, if they have one yet (their first key creates it). */
  identityId: string | null;
  keyPolicy: PortalKeyPolicy;
}

/**
 * The session an access token opens, read from the database on every request: unexpired, not
 * revoked, of a live, enabled portal on a live API. Undefined otherwise.
 */
export async function findPortalSessionByToken(
  em: EntityManager,
  tokenHash: string,
): Promise<PortalSessionPrincipal | undefined> {
  const found = await typed(em)
    .selectFrom('portal_sessions as s')
    .innerJoin('portals as p', (join) =>
      join.onRef('p.id', '=', 's.portal_id').on('p.deleted_at', 'is', null).on('p.enabled', '=', true),
    )
    .innerJoin('apis as a', (join) => join.onRef('a.id', '=', 'p.api_id').on('a.deleted_at', 'is', null))
    .leftJoin('identities as i', (join) =>
      join
        .onRef('i.workspace_id', '=', 's.workspace_id')
        .onRef('i.external_id', '=', 's.external_id')
        .on('i.deleted_at', 'is', null),
    )
    .select([
      's.id',
      's.workspace_id',
      's.portal_id',
      'p.api_id',
      's.external_id',
      's.scopes',
      's.access_expires_at',
      's.return_url',
      'i.id as identity_id',
      'p.key_policy',
    ])
    .where('s.access_token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.access_expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  if (!found?.access_expires_at) return undefined;
  return {
    sessionId: found.id,
    workspaceId: found.workspace_id,
    portalId: found.portal_id,
    apiId: found.api_id,
    externalId: found.external_id,
    scopes: found.scopes,
    expiresAt: found.access_expires_at.getTime(),
    returnUrl: found.return_url,
    identityId: found.identity_id,
    keyPolicy: found.key_policy,
  };
}

/**
 * Holds, until the transaction ends, the one lock under which a customer's keys on a portal are
 * counted and created: so the portal's maximum keys per customer holds however many create at once.
 */
export async function lockPortalCustomer(tx: EntityManager, portalId: string, externalId: string): Promise<void> {
  await rows(
    tx,
    sql`select pg_advisory_xact_lock(hashtextextended(${`portal_customer:${portalId}:${externalId}`}, 0))`,
  );
}

/** How many live keys the customer's identity holds on the API. */
export async function countCustomerKeys(
  tx: EntityManager,
  workspaceId: string,
  apiId: string,
  externalId: string,
): Promise<number> {
  const counted = await typed(tx)
    .selectFrom('keys as k')
    .innerJoin('identities as i', (join) => join.onRef('i.id', '=', 'k.identity_id').on('i.deleted_at', 'is', null))
    .select(sql<number>`count(*)::int`.as('total'))
    .where('k.workspace_id', '=', workspaceId)
    .where('k.api_id', '=', apiId)
    .where('k.deleted_at', 'is', null)
    .where('i.external_id', '=', externalId)
    .executeTakeFirstOrThrow();
  return counted.total;
}

/** One bucket of a customer's verifications: its start (unix ms), the outcome and how many. */
export interface CustomerVerificationBucket {
  time: number;
  outcome: string;
  count: number;
}

/**
 * A customer's verifications on an API over time, per outcome, summed over their keys (or of one
 * key), from the hourly or daily rollups (the identity's externalId as each verification recorded it).
 */
export async function listCustomerVerifications(
  em: EntityManager,
  query: {
    workspaceId: string;
    apiId: string;
    externalId: string;
    keyId?: string;
    from: number;
    to: number;
    granularity: 'hour' | 'day';
  },
): Promise<CustomerVerificationBucket[]> {
  const table = query.granularity === 'hour' ? 'key_verifications_per_hour' : 'key_verifications_per_day';
  let select = typed(em)
    .selectFrom(table)
    .select(['time', 'outcome', sql<number>`sum(count)::int8`.as('total')])
    .where('workspace_id', '=', query.workspaceId)
    .where('api_id', '=', query.apiId)
    .where('external_id', '=', query.externalId)
    .where('time', '>=', query.from)
    .where('time', '<', query.to);
  if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
  // At most 400 daily or 168 hourly buckets of a handful of outcomes each: the limit only guards.
  const found = await select.groupBy(['time', 'outcome']).orderBy('time').limit(10_000).execute();
  return found.map((row) => ({ time: row.time, outcome: row.outcome, count: Number(row.total) }));
}
