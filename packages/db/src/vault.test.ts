import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql, typed } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { findWrappedDataKey, storeDataKey } from './vault.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  await typed(database.orm.em.fork())
    .insertInto('workspaces')
    .values({ id: 'ws_vault', name: 'vault', created_at: sql`now()` })
    .execute();
});
afterAll(async () => {
  await database.drop();
});

describe('vault keys', () => {
  it('are stored once per workspace, the first staying', async () => {
    const em = () => database.orm.em.fork();
    expect(await findWrappedDataKey(em(), 'ws_vault')).toBeUndefined();
    expect(await storeDataKey(em(), 'ws_vault', 'wrapped-1')).toBe(true);
    expect(await storeDataKey(em(), 'ws_vault', 'wrapped-2')).toBe(false);
    expect(await findWrappedDataKey(em(), 'ws_vault')).toBe('wrapped-1');
  });
});
