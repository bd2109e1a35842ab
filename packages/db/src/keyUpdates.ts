import type { ChangeLog } from '@keyplane/caches';
import { type CreditsPatch, planCreditsChange } from '@keyplane/core';
import type { Updateable } from 'kysely';
import type { Database } from './entities/database.ts';
import { keyInvalidation, linkKey, lockKey, type PermissionCreation, resolvePermissions } from './keyRbac.ts';
import type { KeyRecord } from './keyRecords.ts';
import { ensureIdentity, findRoleIds, type KeyRatelimit } from './keys.ts';
import { replaceRatelimits } from './ratelimits.ts';
import { type EntityManager, typed } from './sql.ts';
import { enqueueKeyEvent } from './webhooks.ts';

/** What keys.updateKey changes: an absent field is left as it is, null clears it. */
export interface KeyChanges {
  name?: string | null;
  /** null unlinks the identity; a value links the identity with it, created when missing. */
  externalId?: string | null;
  meta?: Record<string, unknown> | null;
  expiresAt?: Date | null;
  credits?: CreditsPatch | null;
  enabled?: boolean;
  /** Replace the key's limits by name; limits whose name stays keep their id. */
  ratelimits?: KeyRatelimit[];
  /** Replace the key's roles; every one must exist. */
  roles?: string[];
  /** Replace the key's direct permissions, creating missing slugs (as `permissionCreation` allows). */
  permissions?: string[];
}

/**
 * Applies the changes in one transaction: an error (an unknown role, a refill on unlimited
 * credits, a permission slug `permissionCreation` refuses to create) leaves the key as it was.
 */
export async function updateKey(
  em: EntityManager,
  changeLog: ChangeLog,
  key: KeyRecord,
  changes: KeyChanges,
  permissionCreation: PermissionCreation,
): Promise<void> {
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const roleIds = changes.roles ? await findRoleIds(tx, key.workspaceId, changes.roles) : undefined;
    const permissionIds = changes.permissions
      ? await resolvePermissions(tx, key.workspaceId, changes.permissions, permissionCreation)
      : undefined;

    const db = typed(tx);
    const data: Updateable<Database['keys']> = { updated_at: new Date() };
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.meta !== undefined) data.meta = changes.meta;
    if (changes.expiresAt !== undefined) data.expires_at = changes.expiresAt;
    if (changes.enabled !== undefined) data.enabled = changes.enabled;
    if (changes.externalId !== undefined) {
      data.identity_id =
        changes.externalId === null ? null : await ensureIdentity(tx, key.workspaceId, changes.externalId);
    }
    if (changes.credits !== undefined) {
      const current = await db
        .selectFrom('keys')
        .select('credits_remaining')
        .where('id', '=', key.id)
        .executeTakeFirst();
      const limited = current !== undefined && current.credits_remaining !== null;
      const credits = planCreditsChange(changes.credits, limited);
      if (credits.remaining !== undefined) data.credits_remaining = credits.remaining;
      if (credits.refill !== undefined) {
        data.refill_interval = credits.refill?.interval ?? null;
        data.refill_amount = credits.refill?.amount ?? null;
        data.refill_day = credits.refill?.refillDay ?? null;
        // The first refill comes at the next boundary, as for a key created with this refill.
        data.last_refill_at = credits.refill ? new Date() : null;
      }
    }
    await db.updateTable('keys').set(data).where('id', '=', key.id).execute();

    if (changes.ratelimits) {
      await replaceRatelimits(tx, { workspaceId: key.workspaceId, column: 'key_id', id: key.id }, changes.ratelimits);
    }
    if (roleIds) await linkKey(tx, key.id, 'roles', 'set', roleIds);
    if (permissionIds) await linkKey(tx, key.id, 'permissions', 'set', permissionIds);
    await changeLog.announce(tx, keyInvalidation(key));
    const changed = Object.keys(changes).filter((field) => changes[field as keyof KeyChanges] !== undefined);
    await enqueueKeyEvent(tx, 'key.updated', key, { changed });
    if (changes.enabled === false) await enqueueKeyEvent(tx, 'key.disabled', key, {});
  });
}
