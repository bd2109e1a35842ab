import { type CreditsPatch, planCreditsChange } from '@keyplane/core';
import type { EntityData } from '@mikro-orm/core';
import { Key } from './entities/index.ts';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { keyInvalidation, linkKey, lockKey } from './keyRbac.ts';
import type { KeyRecord } from './keyRecords.ts';
import { ensureIdentity, ensurePermissions, findRoleIds, type KeyRatelimit } from './keys.ts';
import { replaceRatelimits } from './ratelimits.ts';
import { type EntityManager, rows, sql } from './sql.ts';

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
  /** Replace the key's direct permissions, creating missing slugs. */
  permissions?: string[];
}

/**
 * Applies the changes in one transaction: an error (an unknown role, a refill on unlimited
 * credits) leaves the key as it was. Returns what every node must forget.
 */
export async function updateKey(em: EntityManager, key: KeyRecord, changes: KeyChanges): Promise<Invalidation> {
  return em.transactional(async (tx) => {
    await lockKey(tx, key);
    const roleIds = changes.roles ? await findRoleIds(tx, key.workspaceId, changes.roles) : undefined;

    const data: EntityData<Key> = { updatedAt: new Date() };
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.meta !== undefined) data.meta = changes.meta;
    if (changes.expiresAt !== undefined) data.expiresAt = changes.expiresAt;
    if (changes.enabled !== undefined) data.enabled = changes.enabled;
    if (changes.externalId !== undefined) {
      data.identity =
        changes.externalId === null ? null : await ensureIdentity(tx, key.workspaceId, changes.externalId);
    }
    if (changes.credits !== undefined) {
      const [current] = await rows(
        tx,
        sql<{ limited: boolean }>`select credits_remaining is not null as limited from keys where id = ${key.id}`,
      );
      const credits = planCreditsChange(changes.credits, current?.limited ?? false);
      if (credits.remaining !== undefined) data.creditsRemaining = credits.remaining;
      if (credits.refill !== undefined) {
        data.refillInterval = credits.refill?.interval ?? null;
        data.refillAmount = credits.refill?.amount ?? null;
        data.refillDay = credits.refill?.refillDay ?? null;
        // The first refill comes at the next boundary, as for a key created with this refill.
        data.lastRefillAt = credits.refill ? new Date() : null;
      }
    }
    await tx.nativeUpdate(Key, { id: key.id }, data);

    if (changes.ratelimits) {
      await replaceRatelimits(tx, { workspaceId: key.workspaceId, column: 'key_id', id: key.id }, changes.ratelimits);
    }
    if (roleIds) await linkKey(tx, key.id, 'roles', 'set', roleIds);
    if (changes.permissions) {
      const permissionIds = await ensurePermissions(tx, key.workspaceId, changes.permissions);
      await linkKey(tx, key.id, 'permissions', 'set', permissionIds);
    }
    const invalidation = keyInvalidation(key);
    await notifyInvalidation(tx, invalidation);
    return invalidation;
  });
}
