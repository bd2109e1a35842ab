import { databaseSetup } from '@keyplane/testing';
import { createOrm, migrate } from '../orm.ts';

/** The test run's database server and template, migrated to this schema (packages/testing). */
export const { setup, teardown } = databaseSetup(async (databaseUrl) => {
  const orm = await createOrm(databaseUrl, { poolSize: 1 });
  await migrate(orm);
  await orm.close();
});
