import { fileURLToPath } from 'node:url';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM } from '@mikro-orm/postgresql';
import { entities } from './entities/index.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export type Orm = MikroORM;

export interface OrmOptions {
  /** Connections per process; each API node and each test file keeps its own pool. */
  poolSize?: number;
  debug?: boolean;
}

export function ormConfig(databaseUrl: string, options: OrmOptions = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    debug: options.debug ?? false,
    pool: { min: 0, max: options.poolSize ?? 10 },
    // The one function, keyplane_spend_credits, is written by hand in its migrations: entities do not
    // model it, and the schema diff must not propose to drop it.
    schemaGenerator: { ignoreRoutines: true },
    migrations: {
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      emit: 'ts',
      // The schema is diffed against a migrated database, so no snapshot file has to be kept in sync.
      snapshot: false,
      silent: true,
    },
  });
}

export async function createOrm(databaseUrl: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, options));
}

/** Applies every pending migration in one transaction. */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
