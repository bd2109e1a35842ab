import { newSecretToken } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { consumeSetupLink, createSetupLink } from './setupLinks.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();

describe('setup links', () => {
  it('is used once, and not after it expired', async () => {
    const { tokenHash } = newSecretToken();
    await createSetupLink(em(), { tokenHash, expiresAt: Date.now() + 60_000 });
    expect(await consumeSetupLink(em(), tokenHash)).toBe(true);
    expect(await consumeSetupLink(em(), tokenHash)).toBe(false);
    const expired = newSecretToken();
    await createSetupLink(em(), { tokenHash: expired.tokenHash, expiresAt: Date.now() - 1 });
    expect(await consumeSetupLink(em(), expired.tokenHash)).toBe(false);
    expect(await consumeSetupLink(em(), newSecretToken().tokenHash)).toBe(false);
  });

  it('lets exactly one of several uses at once succeed', async () => {
    const { tokenHash } = newSecretToken();
    await createSetupLink(em(), { tokenHash, expiresAt: Date.now() + 60_000 });
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        em().transactional(async (tx) => {
          const used = await consumeSetupLink(tx, tokenHash);
          await tx.getConnection().execute('select pg_sleep(0.1)');
          return used;
        }),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });
});
