import './provided.ts';

export { databaseSetup, type MigrateTemplate } from './databaseSetup.ts';
export {
  adminQuery,
  type ClonedDatabase,
  cloneDatabase,
  createEmptyDatabase,
  databaseUrlFor,
} from './databases.ts';
export { createOwnedTempDir, sweepStaleTempDirs } from './tempDirs.ts';
