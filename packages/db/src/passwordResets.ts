import { newId } from '@keyplane/core';
import { type EntityManager, sql, typed } from './sql.ts';

/**
 * Stores a password reset link for the account by its token's hash, and voids the account's earlier
 * unused links: only the newest one an owner or admin issued works.
 */
export async function createPasswordReset(
  em: EntityManager,
  reset: { userId: string; tokenHash: string; expiresAt: number },
): Promise<string> {
  const resetId = newId('passwordReset');
  await typed(em)
    .deleteFrom('password_resets')
    .where('user_id', '=', reset.userId)
    .where('used_at', 'is', null)
    .execute();
  await typed(em)
    .insertInto('password_resets')
    .values({
      id: resetId,
      user_id: reset.userId,
      token_hash: reset.tokenHash,
      expires_at: new Date(reset.expiresAt),
      created_at: sql`now()`,
    })
    .execute();
  return resetId;
}

/**
 * Uses the reset link up and answers whose account it is for: once, for an unexpired link;
 * undefined ever after (and for any other token). One statement, so of two uses at once exactly one
 * succeeds (the second waits on the row, then finds it used).
 */
export async function consumePasswordReset(
  em: EntityManager,
  tokenHash: string,
): Promise<{ userId: string } | undefined> {
  const used = await typed(em)
    .updateTable('password_resets')
    .set({ used_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('user_id')
    .executeTakeFirst();
  return used && { userId: used.user_id };
}
