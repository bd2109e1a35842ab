import { bootstrapIfEmpty } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { typed } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

describe('workspaceStore', () => {
  it('lets exactly one of several first starts together find the database empty', async () => {
    const starts = await Promise.all(
      Array.from({ length: 4 }, () =>
        database.orm.em.fork().transactional((tx) => bootstrapIfEmpty(workspaceStore(tx), { name: 'default' })),
      ),
    );
    const created = starts.filter((start) => start !== undefined);
    expect(created).toHaveLength(1);
    const workspaces = await typed(database.orm.em.fork()).selectFrom('workspaces').select('id').execute();
    expect(workspaces.map((workspace) => workspace.id)).toEqual([created[0]?.workspaceId]);
  });
});
