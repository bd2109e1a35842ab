import { cloneDatabase } from '@keyplane/testing';
import { createOrm, type Orm } from '../orm.ts';

export interface TestDatabase {
  url: string;
  orm: Orm;
  drop(): Promise<void>;
}

/** A test file's own database (`cloneDatabase`), with an ORM on it. */
export async function createTestDatabase(serverUrl: string, templateDatabase: string): Promise<TestDatabase> {
  const database = await cloneDatabase(serverUrl, templateDatabase);
  const orm = await createOrm(database.url, { poolSize: 5 });
  return {
    url: database.url,
    orm,
    async drop() {
      await orm.close();
      await database.drop();
    },
  };
}
