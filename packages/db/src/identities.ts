import { conflict, newId, type RatelimitConfig } from '@keyplane/core';
import type { EntityData } from '@mikro-orm/core';
import { Identity } from './entities/index.ts';
import { notifyInvalidation } from './invalidation.ts';
import { ratelimitsOf } from './keyFragments.ts';
import type { KeyRatelimit } from './keys.ts';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { replaceRatelimits } from './ratelimits.ts';
import { type EntityManager, rows, sql } from './sql.ts';

/** A live identity as the management API shows it (`Identity`, reference 3.1). */
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

const identityColumns = sql`
  i.id, i.external_id as "externalId", i.meta, ${ratelimitsOf('identity_id', sql.ref('i.id'))} as ratelimits`;

/**
 * The id of the live identity of the workspace named by `identity`, its id or its externalId. An
 * externalId may look like another identity's id: the id wins, as in the reference.
 */
const liveIdentityId = (workspaceId: string, identity: string) => sql<{ id: string }>`
  select id from identities
  where workspace_id = ${workspaceId} and deleted_at is null and (id = ${identity} or external_id = ${identity})
  order by id = ${identity} desc
  limit 1`;

/**
 * Creates an identity with its limits. A live identity of the workspace with this externalId is a
 * 409: the partial unique index decides, so of two concurrent creations one wins and the other
 * waits for it and then conflicts, never failing with a unique violation.
 */
export async function createIdentity(em: EntityManager, workspaceId: string, params: NewIdentity): Promise<string> {
  return em.transactional(async (tx) => {
    const id = newId('identity');
    const meta = storedMeta(params.meta);
    const [created] = await rows(
      tx,
      sql<{ id: string }>`
        insert into identities (id, workspace_id, external_id, meta, created_at)
        values (${id}, ${workspaceId}, ${params.externalId}, ${meta === null ? null : JSON.stringify(meta)}::jsonb, now())
        on conflict (workspace_id, external_id) where deleted_at is null do nothing
        returning id`,
    );
    if (!created) {
      throw conflict('identity', `Identity with externalId '${params.externalId}' already exists in this workspace.`);
    }
    await replaceRatelimits(tx, { workspaceId, column: 'identity_id', id }, params.ratelimits);
    return id;
  });
}

/** A live identity of the workspace by id or externalId; deleted ones and other workspaces' do not exist. */
export async function findIdentity(
  em: EntityManager,
  workspaceId: string,
  identity: string,
): Promise<IdentityRecord | undefined> {
  const [found] = await rows(
    em,
    sql<IdentityRecord>`select ${identityColumns} from identities i where i.id = (${liveIdentityId(workspaceId, identity)})`,
  );
  return found;
}

/**
 * One page of the workspace's live identities in id order, optionally only those whose id or
 * externalId contains `search` (any letter case).
 */
export async function listIdentities(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
): Promise<IdentityRecord[]> {
  return rows(
    em,
    sql<IdentityRecord>`
      select ${identityColumns} from identities i
      where i.workspace_id = ${workspaceId} and i.deleted_at is null
        and ${startingAt('i.id', query.fromId)} and ${containsAny(['i.id', 'i.external_id'], query.search)}
      order by i.id
      limit ${query.count}`,
  );
}

/**
 * Applies the changes to a live identity in one transaction and returns it as it now is, or
 * undefined when there is none. Every key of the identity verifies with its meta and limits, so
 * every node forgets the workspace's keys when the transaction commits.
 */
export async function updateIdentity(
  em: EntityManager,
  workspaceId: string,
  identity: string,
  changes: IdentityChanges,
): Promise<IdentityRecord | undefined> {
  return em.transactional(async (tx) => {
    // Locked, so concurrent updates apply one after the other; re-checked after the wait, so an
    // identity deleted meanwhile is not found.
    const [locked] = await rows(
      tx,
      sql<{ id: string }>`
        select id from identities where id = (${liveIdentityId(workspaceId, identity)}) and deleted_at is null
        for update`,
    );
    if (!locked) return undefined;
    const data: EntityData<Identity> = { updatedAt: new Date() };
    if (changes.meta !== undefined) data.meta = storedMeta(changes.meta);
    await tx.nativeUpdate(Identity, { id: locked.id }, data);
    if (changes.ratelimits) {
      await replaceRatelimits(tx, { workspaceId, column: 'identity_id', id: locked.id }, changes.ratelimits);
    }
    await notifyInvalidation(tx, { workspaceId });
    return findIdentity(tx, workspaceId, locked.id);
  });
}

/**
 * Soft-deletes a live identity; false when there is none. Its externalId is free at once; its keys
 * keep `identity_id` but every lookup joins live identities only, so they verify as keys without
 * an identity: every node forgets the workspace's keys when the transaction commits.
 */
export async function deleteIdentity(em: EntityManager, workspaceId: string, identity: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const deleted = await rows(
      tx,
      sql`
        update identities set deleted_at = now(), updated_at = now()
        where id = (${liveIdentityId(workspaceId, identity)}) and deleted_at is null
        returning id`,
    );
    if (deleted.length === 0) return false;
    await notifyInvalidation(tx, { workspaceId });
    return true;
  });
}
