import { newSecretToken } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUser } from './members.ts';
import { consumePasskeyChallenge, createPasskeyChallenge } from './passkeyChallenges.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();

let people = 0;
async function newUser(): Promise<string> {
  const userId = await createUser(em(), { email: `c${++people}@example.com`, name: 'Pat', passwordHash: null });
  if (!userId) throw new Error('email taken');
  return userId;
}

const inAMinute = () => Date.now() + 60_000;

describe('passkey challenges', () => {
  it('is used once, only for its purpose and person, and not after it expired', async () => {
    const userId = await newUser();
    const other = await newUser();
    const { tokenHash: challengeHash } = newSecretToken();
    await createPasskeyChallenge(em(), { challengeHash, purpose: 'registration', userId, expiresAt: inAMinute() });
    expect(await consumePasskeyChallenge(em(), { challengeHash, purpose: 'sign_in', userId: null })).toBe(false);
    expect(await consumePasskeyChallenge(em(), { challengeHash, purpose: 'registration', userId: other })).toBe(false);
    expect(await consumePasskeyChallenge(em(), { challengeHash, purpose: 'registration', userId })).toBe(true);
    expect(await consumePasskeyChallenge(em(), { challengeHash, purpose: 'registration', userId })).toBe(false);

    const signIn = newSecretToken().tokenHash;
    await createPasskeyChallenge(em(), {
      challengeHash: signIn,
      purpose: 'sign_in',
      userId: null,
      expiresAt: inAMinute(),
    });
    expect(await consumePasskeyChallenge(em(), { challengeHash: signIn, purpose: 'registration', userId })).toBe(false);
    expect(await consumePasskeyChallenge(em(), { challengeHash: signIn, purpose: 'sign_in', userId: null })).toBe(true);

    const expired = newSecretToken().tokenHash;
    await createPasskeyChallenge(em(), {
      challengeHash: expired,
      purpose: 'sign_in',
      userId: null,
      expiresAt: Date.now() - 1,
    });
    expect(await consumePasskeyChallenge(em(), { challengeHash: expired, purpose: 'sign_in', userId: null })).toBe(
      false,
    );
    expect(
      await consumePasskeyChallenge(em(), {
        challengeHash: newSecretToken().tokenHash,
        purpose: 'sign_in',
        userId: null,
      }),
    ).toBe(false);
  });

  it('lets exactly one of two answers at once, on two connections, use a challenge', async () => {
    const { tokenHash: challengeHash } = newSecretToken();
    await createPasskeyChallenge(em(), { challengeHash, purpose: 'sign_in', userId: null, expiresAt: inAMinute() });
    const outcomes = await Promise.all(
      [1, 2].map(() =>
        em().transactional(async (tx) => {
          const used = await consumePasskeyChallenge(tx, { challengeHash, purpose: 'sign_in', userId: null });
          // Both transactions stay open together, so the second runs while the first holds the row.
          await tx.getConnection().execute('select pg_sleep(0.1)');
          return used;
        }),
      ),
    );
    expect(outcomes.sort()).toEqual([false, true]);
  });

  it('clears expired challenges as new ones are handed out', async () => {
    const stale = newSecretToken().tokenHash;
    await createPasskeyChallenge(em(), {
      challengeHash: stale,
      purpose: 'sign_in',
      userId: null,
      expiresAt: Date.now() - 1,
    });
    await createPasskeyChallenge(em(), {
      challengeHash: newSecretToken().tokenHash,
      purpose: 'sign_in',
      userId: null,
      expiresAt: inAMinute(),
    });
    const left = await rows(em(), sql`select 1 from passkey_challenges where challenge_hash = ${stale}`);
    expect(left).toEqual([]);
  });
});
