import { newSecretToken } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUser } from './members.ts';
import { consumePasswordReset, createPasswordReset } from './passwordResets.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';

let database: TestDatabase;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const created = await createUser(em(), { email: 'reset@example.test', name: 'Reset', passwordHash: null });
  if (created === undefined) throw new Error('no user');
  userId = created;
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();
const inAMinute = () => Date.now() + 60_000;

describe('password resets', () => {
  it('is used once, for its account, and not after it expired', async () => {
    const { tokenHash } = newSecretToken();
    expect(await createPasswordReset(em(), { userId, tokenHash, expiresAt: inAMinute() })).toMatch(/^pwr_/);
    expect(await consumePasswordReset(em(), tokenHash)).toEqual({ userId });
    expect(await consumePasswordReset(em(), tokenHash)).toBeUndefined();
    const expired = newSecretToken();
    await createPasswordReset(em(), { userId, tokenHash: expired.tokenHash, expiresAt: Date.now() - 1 });
    expect(await consumePasswordReset(em(), expired.tokenHash)).toBeUndefined();
    expect(await consumePasswordReset(em(), newSecretToken().tokenHash)).toBeUndefined();
  });

  it('voids the earlier unused links of the account when a new one is issued', async () => {
    const first = newSecretToken();
    const second = newSecretToken();
    await createPasswordReset(em(), { userId, tokenHash: first.tokenHash, expiresAt: inAMinute() });
    await createPasswordReset(em(), { userId, tokenHash: second.tokenHash, expiresAt: inAMinute() });
    expect(await consumePasswordReset(em(), first.tokenHash)).toBeUndefined();
    expect(await consumePasswordReset(em(), second.tokenHash)).toEqual({ userId });
  });

  it('lets exactly one of several uses at once succeed', async () => {
    const { tokenHash } = newSecretToken();
    await createPasswordReset(em(), { userId, tokenHash, expiresAt: inAMinute() });
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        em().transactional(async (tx) => {
          const used = await consumePasswordReset(tx, tokenHash);
          await tx.getConnection().execute('select pg_sleep(0.1)');
          return used;
        }),
      ),
    );
    expect(outcomes.filter(Boolean)).toEqual([{ userId }]);
  });
});
