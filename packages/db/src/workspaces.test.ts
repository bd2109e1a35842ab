import { bootstrapIfEmpty } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { typed } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { findOldestWorkspace, workspaceStore } from './workspaces.ts';

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

describe('findOldestWorkspace', () => {
  it('finds the oldest workspace not deleted', async () => {
    const em = () => database.orm.em.fork();
    const insert = (id: string, createdAt: string) =>
      typed(em())
        .insertInto('workspaces')
        .values({ id, name: id, created_at: new Date(createdAt) })
        .execute();
    await insert('ws_oldest_a', '2001-01-01T00:00:00Z');
    await insert('ws_oldest_b', '2001-01-02T00:00:00Z');
    expect((await findOldestWorkspace(em()))?.id).toBe('ws_oldest_a');
    await typed(em())
      .updateTable('workspaces')
      .set({ deleted_at: new Date() })
      .where('id', '=', 'ws_oldest_a')
      .execute();
    expect((await findOldestWorkspace(em()))?.id).toBe('ws_oldest_b');
  });
});
