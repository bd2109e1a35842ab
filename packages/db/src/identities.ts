import type { ChangeLog } from '@keyplane/caches';
import { newId, type RatelimitConfig } from '@keyplane/core';
import type { InferResult } from 'kysely';
import { RowExists } from './errors.ts';
import { ratelimitsOf } from './keyFragments.ts';
import type { KeyRatelimit } from './keys.ts';
import { amongIds, budgetedPageLength, type ChosenPage, containsAny, type PageQuery, startingAt } from './listing.ts';
import { namedBy } from './lookup.ts';
import { revokeSessionsOfCustomer } from './portals.ts';
import { replaceRatelimits } from './ratelimits.ts';
import { type EntityManager, sql, typed } from './sql.ts';

/** A live identity as the management API shows it (`Identity`, docs/contract.md#identities). */
export interface IdentityRecord {
  id: string;
  externalId: string;
  meta: Record<string, unknown> | null;
  /** Its own limits, shared by all of its keys; sorted by name. */
  ratelimits: RatelimitConfig[];
}

export interface NewIdentity {
  externalId: string;
  meta: Record<string, unknown> | null;
  ratelimits: KeyRatelimit[];
}

/** What identities.updateIdentity changes: an absent field is left as it is. */
export interface IdentityChanges {
  /** Replaces the stored meta; null clears it. */
  meta?: Record<string, unknown> | null;
  /** Replaces the identity's limits by name (see {@link replaceRatelimits}). */
  ratelimits?: KeyRatelimit[];
}

/** `{}` is stored as no meta: it clears, as in the reference, and reads back as none. */
const storedMeta = (meta: Record<string, unknown> | null) => (meta && Object.keys(meta).length > 0 ? meta : null);

/** The id of the live identity of the workspace named by `identity`, its id or its externalId. */
const liveIdentityNamed = (em: EntityManager, workspaceId: string, identity: string) =>
  typed(em)
    .selectFrom('identities')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .$call(namedBy('external_id', identity));

const identities = (em: EntityManager) =>
  typed(em)
    .selectFrom('identities as i')
    .select(['i.id', 'i.external_id', 'i.meta'])
    .select(ratelimitsOf('identity_id', sql.ref('i.id')).as('ratelimits'));

type IdentityRow = InferResult<ReturnType<typeof identities>>[number];

const identityRecord = (row: IdentityRow): IdentityRecord => ({
  id: row.id,
  externalId: row.external_id,
  meta: row.meta,
  ratelimits: row.ratelimits,
});

/**
 * Creates an identity with its limits. A live identity of the workspace with this externalId is a
 * 409: the partial unique index decides, so of two concurrent creations one wins and the other
 * waits for it and then conflicts, never failing with a unique violation.
 */
export async function createIdentity(em: EntityManager, workspaceId: string, params: NewIdentity): Promise<string> {
  return em.transactional(async (tx) => {
    const created = await typed(tx)
      .insertInto('identities')
      .values({
        id: newId('identity'),
        workspace_id: workspaceId,
        external_id: params.externalId,
        meta: storedMeta(params.meta),
        created_at: sql`now()`,
      })
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'external_id']).where('deleted_at', 'is', null).doNothing(),
      )
      .returning('id')
      .executeTakeFirst();
    if (!created) throw new RowExists('identity', params.externalId);
    await replaceRatelimits(tx, { workspaceId, column: 'identity_id', id: created.id }, params.ratelimits);
    return created.id;
  });
}

/** A live identity of the workspace by id or externalId; deleted ones and other workspaces' do not exist. */
export async function findIdentity(
  em: EntityManager,
  workspaceId: string,
  identity: string,
): Promise<IdentityRecord | undefined> {
  const found = await identities(em)
    .where('i.id', '=', liveIdentityNamed(em, workspaceId, identity))
    .executeTakeFirst();
  return found && identityRecord(found);
}

/**
 * One page of the workspace's live identities in id order, optionally only those whose id or
 * externalId contains `search` (any letter case): at most `query.count - 1` identities whose
 * meta takes at most `maxBytes` between them (one identity at least, whatever its meta), chosen
 * by the size of their meta before any is read.
 */
export async function listIdentities(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
  maxBytes: number,
): Promise<ChosenPage<IdentityRecord>> {
  const candidates = await typed(em)
    .selectFrom('identities as i')
    .select(['i.id', sql<number>`coalesce(octet_length(i.meta::text), 0)`.as('meta_bytes')])
    .where('i.workspace_id', '=', workspaceId)
    .where('i.deleted_at', 'is', null)
    .where(amongIds('i.id', query.ids))
    .where(startingAt('i.id', query.fromId))
    .where(containsAny(['i.id', 'i.external_id'], query.search))
    .orderBy('i.id')
    .limit(query.count)
    .execute();
  const length = budgetedPageLength(
    candidates.map((candidate) => candidate.meta_bytes),
    query.count - 1,
    maxBytes,
  );
  const ids = candidates.slice(0, length).map((candidate) => candidate.id);
  const found = ids.length === 0 ? [] : await identities(em).where('i.id', 'in', ids).orderBy('i.id').execute();
  return { rows: found.map(identityRecord), nextId: candidates[length]?.id };
}

/**
 * Applies the changes to a live identity in one transaction and returns it as it now is, or
 * undefined when there is none. Every key of the identity verifies with its meta and limits, so
 * every node forgets the workspace's keys when the transaction commits.
 */
export async function updateIdentity(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  identity: string,
  changes: IdentityChanges,
): Promise<IdentityRecord | undefined> {
  return em.transactional(async (tx) => {
    // Locked, so concurrent updates apply one after the other; re-checked after the wait, so an
    // identity deleted meanwhile is not found.
    const locked = await typed(tx)
      .selectFrom('identities')
      .select('id')
      .where('id', '=', liveIdentityNamed(tx, workspaceId, identity))
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!locked) return undefined;
    await typed(tx)
      .updateTable('identities')
      .set({
        updated_at: new Date(),
        ...(changes.meta === undefined ? {} : { meta: storedMeta(changes.meta) }),
      })
      .where('id', '=', locked.id)
      .execute();
    if (changes.ratelimits) {
      await replaceRatelimits(tx, { workspaceId, column: 'identity_id', id: locked.id }, changes.ratelimits);
    }
    await changeLog.announce(tx, { workspaceId });
    return findIdentity(tx, workspaceId, locked.id);
  });
}

/**
 * Soft-deletes a live identity; false when there is none. Its externalId is free at once; its keys
 * keep `identity_id` but every lookup joins live identities only, so they verify as keys without
 * an identity: every node forgets the workspace's keys when the transaction commits.
 */
export async function deleteIdentity(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  identity: string,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await typed(tx)
      .updateTable('identities')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', liveIdentityNamed(tx, workspaceId, identity))
      .where('deleted_at', 'is', null)
      .returning(['id', 'external_id'])
      .executeTakeFirst();
    if (!deleted) return false;
    // The customer's portal sessions end with their identity (docs/portal.md#sessions).
    await revokeSessionsOfCustomer(tx, workspaceId, deleted.external_id);
    await changeLog.announce(tx, { workspaceId });
    return true;
  });
}
