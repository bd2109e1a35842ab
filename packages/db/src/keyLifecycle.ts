import {
  badRequest,
  CREDITS_UPDATE_DETAILS,
  type CreditsState,
  DEFAULT_KEY_BYTES,
  encryptKeyMaterial,
  generateKey,
  keyCreationPrecondition,
  latestRefillBoundary,
  MAX_CREDITS,
  newId,
  notFound,
  rerolledKeyExpiry,
  rerolledKeyPrefix,
} from '@keyplane/core';
import type { RawBuilder } from 'kysely';
import { findApi } from './apis.ts';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { creditsStateOf, type RefillColumns, refillColumns } from './keyDetails.ts';
import type { KeyScope } from './keys.ts';
import { type EntityManager, rows, sql } from './sql.ts';
import { loadDataKey } from './vault.ts';

// Every change here is announced to all nodes on commit and returned, so the caller can also
// evict its own cache at once: revocation must not wait for a cache entry to go stale.

const keyNotFound = (keyId: string) => notFound('key', `The key '${keyId}' was not found.`);

/**
 * Deletes a live key. Soft: it then does not exist for any procedure and verifies NOT_FOUND.
 * Permanent: the row goes, and with it (foreign-key cascades) its permission and role links and
 * rate limits; the ciphertext of a recoverable key lives in the row.
 */
export async function deleteKey(
  em: EntityManager,
  workspaceId: string,
  keyId: string,
  options: { permanent: boolean },
): Promise<Invalidation> {
  return em.transactional(async (tx) => {
    const live = sql`id = ${keyId} and workspace_id = ${workspaceId} and deleted_at is null`;
    const [deleted] = await rows(
      tx,
      options.permanent
        ? sql<{ hash: string }>`delete from keys where ${live} returning hash`
        : sql<{ hash: string }>`update keys set deleted_at = now(), updated_at = now() where ${live} returning hash`,
    );
    if (!deleted) throw keyNotFound(keyId);
    const change = { workspaceId, keyHashes: [deleted.hash] };
    await notifyInvalidation(tx, change);
    return change;
  });
}

/**
 * `set` with a number sets the balance; with null the key becomes unlimited and loses its refill;
 * with no value it becomes unlimited but keeps its refill (the reference product's edge case).
 */
export type CreditsUpdate =
  | { operation: 'set'; value: number | null | undefined }
  | { operation: 'increment' | 'decrement'; value: number };

/**
 * Changes a key's credits in one UPDATE under a row lock, so concurrent changes and spends never
 * lose one another. A refill whose boundary has passed is applied first (and recorded), exactly
 * as verification would, so the change acts on the balance a reader sees. Decrements stop at 0; an
 * increment past {@link MAX_CREDITS} is refused, changing nothing.
 */
export async function updateKeyCredits(
  em: EntityManager,
  workspaceId: string,
  keyId: string,
  update: CreditsUpdate,
  now: number,
): Promise<{ credits: CreditsState; change: Invalidation }> {
  return em.transactional(async (tx) => {
    const [current] = await rows(
      tx,
      sql<RefillColumns & { hash: string }>`
        select k.hash, ${refillColumns('k')} from keys k
        where k.id = ${keyId} and k.workspace_id = ${workspaceId} and k.deleted_at is null
        for update`,
    );
    if (!current) throw keyNotFound(keyId);
    if (update.operation !== 'set' && current.remaining === null) {
      throw badRequest(CREDITS_UPDATE_DETAILS.unlimited, [
        { location: 'body.operation', message: CREDITS_UPDATE_DETAILS.unlimited },
      ]);
    }

    const { refill } = creditsStateOf(current);
    const boundary = refill ? new Date(latestRefillBoundary(refill, now)) : undefined;
    const due = boundary ? sql`(last_refill_at is null or last_refill_at < ${boundary}::timestamptz)` : sql`false`;
    const balance = sql`(case when ${due} then greatest(credits_remaining, refill_amount) else credits_remaining end)`;
    const refilled = boundary
      ? sql`last_refill_at = case when ${due} then ${boundary}::timestamptz else last_refill_at end`
      : sql`last_refill_at = last_refill_at`;
    const assignments = creditsAssignments(update, balance, refilled);
    // Judged by the UPDATE itself, on the balance it changes: no other writer can slip in between.
    const withinBound =
      update.operation === 'increment' ? sql`${balance} + ${update.value} <= ${MAX_CREDITS}` : sql`true`;
    const [updated] = await rows(
      tx,
      sql<RefillColumns>`update keys k set ${assignments}, updated_at = now() where k.id = ${keyId} and ${withinBound}
                         returning ${refillColumns('k')}`,
    );
    // The row exists and is locked, so only the bound can have refused it; the rollback undoes any refill.
    if (!updated) {
      throw badRequest(CREDITS_UPDATE_DETAILS.tooLarge, [
        { location: 'body.value', message: `would take the balance past ${MAX_CREDITS}` },
      ]);
    }
    const change = { workspaceId, keyHashes: [current.hash] };
    await notifyInvalidation(tx, change);
    return { credits: creditsStateOf(updated), change };
  });
}

/** The SET list for an update, given the balance after any due refill and the refill stamp. */
function creditsAssignments(update: CreditsUpdate, balance: RawBuilder<unknown>, refilled: RawBuilder<unknown>) {
  switch (update.operation) {
    case 'increment':
      return sql`credits_remaining = ${balance} + ${update.value}, ${refilled}`;
    case 'decrement':
      return sql`credits_remaining = greatest(${balance} - ${update.value}, 0), ${refilled}`;
    case 'set':
      if (update.value === null) {
        return sql`credits_remaining = null, refill_interval = null, refill_amount = null, refill_day = null,
                   last_refill_at = null`;
      }
      if (update.value === undefined) return sql`credits_remaining = null`;
      // The due refill happened at its boundary, before this set: it must not overwrite the new balance.
      return sql`credits_remaining = ${update.value}, ${refilled}`;
  }
}

export interface RerollParams {
  keyId: string;
  /** How long the old key keeps working, in ms. */
  expirationMs: number;
  now: number;
  /** Throws when the caller may not store keys encrypted; asked only when the old key is recoverable. */
  authorizeEncryption(): void;
}

/**
 * Replaces a key, in one transaction: a new key (new id, new secret) with everything the old one
 * had (name, meta, expiry, enabled, credits and refill, identity, rate limits under new ids,
 * direct permissions, roles), encrypted too when the old one was recoverable; the old key then
 * expires after `expirationMs`.
 */
export async function rerollKey(
  em: EntityManager,
  scope: KeyScope,
  params: RerollParams,
): Promise<{ keyId: string; key: string; change: Invalidation }> {
  return em.transactional(async (tx) => {
    const [old] = await rows(
      tx,
      sql<{ apiId: string; hash: string; start: string; recoverable: boolean }>`
        select api_id as "apiId", hash, start, ciphertext is not null as recoverable
        from keys where id = ${params.keyId} and workspace_id = ${scope.workspaceId} and deleted_at is null
        for update`,
    );
    if (!old) throw keyNotFound(params.keyId);
    const api = await findApi(tx, scope.workspaceId, old.apiId);
    if (!api) throw keyNotFound(params.keyId);
    if (old.recoverable) params.authorizeEncryption();
    const dataKey = old.recoverable ? await loadDataKey(tx, scope.workspaceId, scope.vaultMasterKey) : undefined;
    const unmet = keyCreationPrecondition({
      recoverable: old.recoverable,
      vaultReady: dataKey !== undefined,
      keyAuthEnabled: api.keyAuthEnabled,
      encryptionEnabled: api.encryptionEnabled,
    });
    if (unmet) throw unmet;

    const keyId = newId('key');
    const material = generateKey({
      prefix: rerolledKeyPrefix(old.start, api.defaultPrefix),
      byteLength: api.defaultBytes ?? DEFAULT_KEY_BYTES,
    });
    const ciphertext = dataKey ? encryptKeyMaterial(dataKey, material.key, keyId) : null;
    // Copied in the database, so values (jsonb meta, timestamps, bigints) are never round-tripped through JS.
    await rows(
      tx,
      sql`
        insert into keys (id, workspace_id, api_id, hash, start, name, identity_id, meta, expires_at, enabled,
                          credits_remaining, refill_interval, refill_amount, refill_day, last_refill_at, ciphertext,
                          created_at)
        select ${keyId}, workspace_id, api_id, ${material.hash}, ${material.start}, name, identity_id, meta, expires_at,
               enabled, credits_remaining, refill_interval, refill_amount, refill_day, last_refill_at, ${ciphertext},
               now()
        from keys where id = ${params.keyId}`,
    );
    const limits = await rows(tx, sql<{ id: string }>`select id from ratelimits where key_id = ${params.keyId}`);
    if (limits.length > 0) {
      const oldIds = limits.map((limit) => limit.id);
      const newIds = limits.map(() => newId('ratelimit'));
      await rows(
        tx,
        sql`
          insert into ratelimits (id, workspace_id, key_id, name, "limit", duration_ms, auto_apply, created_at)
          select t.new_id, rl.workspace_id, ${keyId}, rl.name, rl."limit", rl.duration_ms, rl.auto_apply, now()
          from ratelimits rl join unnest(${oldIds}::text[], ${newIds}::text[]) as t(old_id, new_id) on t.old_id = rl.id`,
      );
    }
    await rows(
      tx,
      sql`insert into keys_permissions (key_id, permission_id, created_at)
          select ${keyId}, permission_id, now() from keys_permissions where key_id = ${params.keyId}`,
    );
    await rows(
      tx,
      sql`insert into keys_roles (key_id, role_id, created_at)
          select ${keyId}, role_id, now() from keys_roles where key_id = ${params.keyId}`,
    );
    const oldExpiresAt = new Date(rerolledKeyExpiry(params.now, params.expirationMs));
    await rows(tx, sql`update keys set expires_at = ${oldExpiresAt}, updated_at = now() where id = ${params.keyId}`);
    // The old key's expiry changed; the new hash may be cached as unknown somewhere.
    const change = { workspaceId: scope.workspaceId, keyHashes: [old.hash, material.hash] };
    await notifyInvalidation(tx, change);
    return { keyId, key: material.key, change };
  });
}
