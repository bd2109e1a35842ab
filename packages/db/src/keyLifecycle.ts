import type { ChangeLog } from '@keyplane/caches';
import {
  type CreditsUpdate,
  type CreditsWrite,
  type KeyCreditsStore,
  type KeyReplacement,
  type KeyRerollStore,
  type KeyToReroll,
  newId,
} from '@keyplane/core';
import type { Expression, ExpressionBuilder } from 'kysely';
import { findApi } from './apis.ts';
import type { Database } from './entities/database.ts';
import { RowNotFound } from './errors.ts';
import { creditColumns, creditsStateOf } from './keyDetails.ts';
import { type EntityManager, typed } from './sql.ts';
import { vaultStore } from './vault.ts';
import { enqueueCreditCrossings, enqueueKeyEvent } from './webhooks.ts';

// Every change here is announced to all nodes on commit and returned, so the caller can also
// evict its own cache at once: revocation must not wait for a cache entry to go stale.

/**
 * Deletes a live key. Soft: it then does not exist for any procedure and verifies NOT_FOUND.
 * Permanent: the row goes, and with it (foreign-key cascades) its permission and role links and
 * rate limits; the ciphertext of a recoverable key lives in the row.
 */
export async function deleteKey(
  em: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  keyId: string,
  options: { permanent: boolean },
): Promise<void> {
  return em.transactional(async (tx) => {
    const db = typed(tx);
    const now = new Date();
    const deleted = options.permanent
      ? await db
          .deleteFrom('keys')
          .where('id', '=', keyId)
          .where('workspace_id', '=', workspaceId)
          .where('deleted_at', 'is', null)
          .returning(['hash', 'api_id'])
          .executeTakeFirst()
      : await db
          .updateTable('keys')
          .set({ deleted_at: now, updated_at: now })
          .where('id', '=', keyId)
          .where('workspace_id', '=', workspaceId)
          .where('deleted_at', 'is', null)
          .returning(['hash', 'api_id'])
          .executeTakeFirst();
    if (!deleted) throw new RowNotFound('key', keyId);
    await changeLog.announce(tx, { workspaceId, keyHashes: [deleted.hash] });
    await enqueueKeyEvent(
      tx,
      'key.deleted',
      { workspaceId, apiId: deleted.api_id, id: keyId },
      {
        permanent: options.permanent,
      },
    );
  });
}

/** What core's updateKeyCredits reads and writes, on the transaction `tx`; the change is announced on `changeLog`. */
export function keyCreditsStore(tx: EntityManager, changeLog: ChangeLog): KeyCreditsStore {
  return {
    async lockCredits(workspaceId, keyId) {
      const row = await typed(tx)
        .selectFrom('keys')
        .select(creditColumns)
        .where('id', '=', keyId)
        .where('workspace_id', '=', workspaceId)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      return row && creditsStateOf(row);
    },
    writeCredits: (workspaceId, keyId, write) => writeCredits(tx, changeLog, workspaceId, keyId, write),
  };
}

type KeysExpression = ExpressionBuilder<Database, 'keys'>;

/** The write as one UPDATE: the balance, the refill stamp and the bound are all judged on the row it changes. */
async function writeCredits(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  keyId: string,
  { update, refillAt, ceiling }: CreditsWrite,
) {
  // The balance after the due refill, if one is: raised to the refill amount, never lowered.
  const balance = (eb: KeysExpression): Expression<number | null> =>
    refillAt === undefined ? eb.ref('credits_remaining') : eb.fn('greatest', ['credits_remaining', 'refill_amount']);
  const refilled = refillAt === undefined ? {} : { last_refill_at: new Date(refillAt) };
  let statement = typed(tx)
    .updateTable('keys')
    .set((eb) => ({ ...creditsAssignments(eb, update, balance(eb), refilled), updated_at: new Date() }))
    .where('id', '=', keyId);
  if (update.operation === 'increment') {
    statement = statement.where((eb) => eb(eb(balance(eb), '+', update.value), '<=', ceiling));
  }
  const before = await typed(tx)
    .selectFrom('keys')
    .select(['credits_remaining', 'refill_amount'])
    .where('id', '=', keyId)
    .executeTakeFirst();
  const updated = await statement.returning(['hash', 'api_id', ...creditColumns]).executeTakeFirst();
  if (!updated) return undefined;
  await changeLog.announce(tx, { workspaceId, keyHashes: [updated.hash] });
  const key = { workspaceId, apiId: updated.api_id, id: keyId };
  await enqueueKeyEvent(tx, 'key.updated', key, { changed: ['credits'], remaining: updated.credits_remaining });
  await enqueueCreditCrossings(
    tx,
    key,
    before?.credits_remaining ?? null,
    updated.credits_remaining,
    before?.refill_amount ?? null,
  );
  return creditsStateOf(updated);
}

/** The SET list: a new balance comes with the due refill's stamp; an unlimited key has nothing to refill. */
function creditsAssignments(
  eb: KeysExpression,
  update: CreditsUpdate,
  balance: Expression<number | null>,
  refilled: { last_refill_at?: Date },
) {
  switch (update.operation) {
    case 'increment':
      return { credits_remaining: eb(balance, '+', update.value), ...refilled };
    case 'decrement':
      return { credits_remaining: eb.fn<number>('greatest', [eb(balance, '-', update.value), eb.lit(0)]), ...refilled };
    case 'set':
      if (update.value === null) {
        return {
          credits_remaining: null,
          refill_interval: null,
          refill_amount: null,
          refill_day: null,
          last_refill_at: null,
        };
      }
      if (update.value === undefined) return { credits_remaining: null };
      // The due refill happened at its boundary, before this set: it must not overwrite the new balance.
      return { credits_remaining: update.value, ...refilled };
  }
}

/** What core's rerollKey reads and writes, on the transaction `tx`; the change is announced on `changeLog`. */
export function keyRerollStore(tx: EntityManager, changeLog: ChangeLog): KeyRerollStore {
  return {
    ...vaultStore(tx),
    findApi: (workspaceId, apiId) => findApi(tx, workspaceId, apiId),
    async lockKey(workspaceId, keyId) {
      const row = await typed(tx)
        .selectFrom('keys')
        .select(['id', 'api_id', 'hash', 'start', 'ciphertext'])
        .where('id', '=', keyId)
        .where('workspace_id', '=', workspaceId)
        .where('deleted_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      return (
        row && { id: row.id, apiId: row.api_id, hash: row.hash, start: row.start, recoverable: row.ciphertext !== null }
      );
    },
    replaceKey: (workspaceId, old, replacement) => replaceKey(tx, changeLog, workspaceId, old, replacement),
  };
}

/**
 * Inserts the replacement as a copy of the old key (its rate limits under new ids, its direct
 * permissions and roles), then expires the old key.
 */
async function replaceKey(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  old: KeyToReroll,
  replacement: KeyReplacement,
): Promise<void> {
  const db = typed(tx);
  const now = new Date();
  // Copied in the database, so values (jsonb meta, timestamps, bigints) are never round-tripped through JS.
  await db
    .insertInto('keys')
    .columns([
      'id',
      'workspace_id',
      'api_id',
      'hash',
      'start',
      'name',
      'identity_id',
      'meta',
      'expires_at',
      'enabled',
      ...creditColumns,
      'ciphertext',
      'created_at',
    ])
    .expression(
      db
        .selectFrom('keys')
        .select((eb) => [
          eb.val(replacement.id).as('id'),
          'workspace_id',
          'api_id',
          eb.val(replacement.hash).as('hash'),
          eb.val(replacement.start).as('start'),
          'name',
          'identity_id',
          'meta',
          'expires_at',
          'enabled',
          ...creditColumns,
          eb.val(replacement.ciphertext).as('ciphertext'),
          eb.val(now).as('created_at'),
        ])
        .where('id', '=', old.id),
    )
    .execute();
  const limits = await db
    .selectFrom('ratelimits')
    .select(['workspace_id', 'name', 'limit', 'duration_ms', 'auto_apply'])
    .where('key_id', '=', old.id)
    .execute();
  if (limits.length > 0) {
    await db
      .insertInto('ratelimits')
      .values(limits.map((limit) => ({ ...limit, id: newId('ratelimit'), key_id: replacement.id, created_at: now })))
      .execute();
  }
  await db
    .insertInto('keys_permissions')
    .columns(['key_id', 'permission_id', 'created_at'])
    .expression(
      db
        .selectFrom('keys_permissions')
        .select((eb) => [eb.val(replacement.id).as('key_id'), 'permission_id', eb.val(now).as('created_at')])
        .where('key_id', '=', old.id),
    )
    .execute();
  await db
    .insertInto('keys_roles')
    .columns(['key_id', 'role_id', 'created_at'])
    .expression(
      db
        .selectFrom('keys_roles')
        .select((eb) => [eb.val(replacement.id).as('key_id'), 'role_id', eb.val(now).as('created_at')])
        .where('key_id', '=', old.id),
    )
    .execute();
  await db
    .updateTable('keys')
    .set({ expires_at: replacement.oldExpiresAt, updated_at: now })
    .where('id', '=', old.id)
    .execute();
  // The old key's expiry changed; the new hash may be cached as unknown somewhere.
  await changeLog.announce(tx, { workspaceId, keyHashes: [old.hash, replacement.hash] });
  await enqueueKeyEvent(
    tx,
    'key.rerolled',
    { workspaceId, apiId: old.apiId, id: old.id },
    {
      newKeyId: replacement.id,
      oldKeyExpires: replacement.oldExpiresAt?.getTime() ?? null,
    },
  );
}
