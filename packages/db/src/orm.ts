import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
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
    // The functions (keyplane_spend_credits, keyplane_create_event_partition) are written by hand in
    // their migrations: entities do not model them, and the schema diff must not propose to drop them.
    // The event tables' partitions need nothing here: entities without `partitionBy` leave them alone.
    // The analytics views (Migration20261128120000_analytics_views) live in schemas of their own,
    // written by hand for the same reason.
    schemaGenerator: { ignoreRoutines: true, ignoreSchema: ['keyplane_analytics', 'keyplane_analytics_scoped'] },
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

/** The advisory lock migrations run under (any constant no other lock of ours uses). */
const MIGRATION_LOCK = '4823016540017353';

/**
 * Applies every pending migration in one transaction, under a session advisory lock held on a
 * connection of its own: nodes starting together on a fresh database would otherwise create the
 * same tables at once, and all but one die on a duplicate type. The others wait, then find nothing
 * pending. The lock goes with its connection, so a process that dies while migrating frees it.
 */
export async function migrate(orm: Orm): Promise<void> {
  const lock = new pg.Client({ connectionString: orm.config.get('clientUrl'), application_name: 'keyplane_migrate' });
  await lock.connect();
  try {
    // Raw: a session advisory lock on a connection of its own (see above).
    await lock.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.end();
  }
}

/** The committed migrations, by name, oldest first. */
const MIGRATIONS = readdirSync(MIGRATIONS_DIR)
  .filter((file) => /^Migration\w+\.ts$/.test(file))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();

/** PostgreSQL's "undefined_table": the database has never been migrated. */
const UNDEFINED_TABLE = '42P01';

/**
 * The migrations this code has that the database has not run, by name. Read from the migrations'
 * table without the migrator, which would create that table (and even the database) when missing.
 */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  let executed: { name: string }[];
  try {
    // Raw: the migrator's own table, which no entity defines.
    executed = await orm.em.fork().getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations');
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return [...MIGRATIONS];
    throw error;
  }
  const done = new Set(executed.map(({ name }) => name));
  return MIGRATIONS.filter((name) => !done.has(name));
}
