import { type EntityManager, sql, typed } from './sql.ts';

/**
 * Uses the password-reset link up and answers whose password it resets, or undefined when it is
 * unknown, used or expired. One statement, so of two uses at once exactly one succeeds.
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
