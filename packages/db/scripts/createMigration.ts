// Generates a TypeScript migration from the difference between the entities and a database that
// already has every committed migration applied: `DATABASE_URL=… npm run migration:create -w @keyplane/db`.
import { loadEnv } from '@keyplane/config';
import { createOrm, migrate } from '../src/orm.ts';

const { DATABASE_URL } = loadEnv();
if (!DATABASE_URL) {
  console.error('DATABASE_URL must point at a scratch database.');
  process.exit(2);
}
const orm = await createOrm(DATABASE_URL);
await migrate(orm);
const result = await orm.migrator.create(undefined, false, false, process.argv[2]);
console.log(result.fileName ? `created ${result.fileName}` : 'schema is up to date; nothing to create');
await orm.close();
