import { type EntityManager, sql, typed } from './sql.ts';

/** What a challenge was handed out for: adding a passkey (for one person) or signing in with one. */
export type PasskeyChallengePurpose = 'registration' | 'sign_in';

/**
 * Stores a challenge by its hash until it expires, and drops the expired ones while at it (each
 * insert clears what the ceremonies that were never finished left behind).
 */
export async function createPasskeyChallenge(
  em: EntityManager,
  challenge: { challengeHash: string; purpose: PasskeyChallengePurpose; userId: string | null; expiresAt: number },
): Promise<void> {
  await typed(em).deleteFrom('passkey_challenges').where('expires_at', '<=', sql<Date>`now()`).execute();
  await typed(em)
    .insertInto('passkey_challenges')
    .values({
      challenge_hash: challenge.challengeHash,
      purpose: challenge.purpose,
      user_id: challenge.userId,
      expires_at: new Date(challenge.expiresAt),
      created_at: sql`now()`,
    })
    .execute();
}

/**
 * Uses the challenge up: true once, for an unexpired challenge handed out for this purpose (and,
 * for a registration, this person), false ever after and for any other. One statement, so of two
 * answers at once, on any nodes, exactly one gets it.
 */
export async function consumePasskeyChallenge(
  em: EntityManager,
  challenge: { challengeHash: string; purpose: PasskeyChallengePurpose; userId: string | null },
): Promise<boolean> {
  const { userId } = challenge;
  const used = await typed(em)
    .deleteFrom('passkey_challenges')
    .where('challenge_hash', '=', challenge.challengeHash)
    .where('purpose', '=', challenge.purpose)
    .where((where) => (userId === null ? where('user_id', 'is', null) : where('user_id', '=', userId)))
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('challenge_hash')
    .executeTakeFirst();
  return used !== undefined;
}
