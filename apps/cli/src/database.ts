import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '@keyplane/config';
import { createOrm, type EntityManager, migrate } from '@keyplane/db';
import { findRunningEmbedded, startEmbeddedPostgres } from '@keyplane/embedded';
import { CommandError } from './errors.ts';

interface LocatedDatabase {
  url: string;
  release(): Promise<void>;
}

/**
 * Runs `work` against the server's database, migrated first: `DATABASE_URL`, else the embedded
 * Postgres of a running server, else the embedded cluster started just for this command.
 * `mayInitialise` lets a command create that cluster on a machine that has none yet.
 */
export async function withDatabase<T>(
  env: Env,
  options: { mayInitialise: boolean },
  work: (em: EntityManager, databaseUrl: string) => Promise<T>,
): Promise<T> {
  const database = await locateDatabase(env, options.mayInitialise);
  try {
    const orm = await createOrm(database.url, { poolSize: 1 });
    try {
      await migrate(orm);
      return await work(orm.em.fork(), database.url);
    } finally {
      await orm.close();
    }
  } finally {
    await database.release();
  }
}

async function locateDatabase(env: Env, mayInitialise: boolean): Promise<LocatedDatabase> {
  const keep = async () => {};
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, release: keep };
  const running = await findRunningEmbedded(env.DATA_DIR);
  if (running) return { url: running, release: keep };
  if (!mayInitialise && !existsSync(join(env.DATA_DIR, 'pg', 'PG_VERSION'))) {
    throw new CommandError(
      `no database: DATABASE_URL is not set and there is no embedded database in ${env.DATA_DIR} (start the server or run keyplane bootstrap first)`,
    );
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: env.DATA_DIR,
    // stderr: with --json, stdout carries exactly one JSON object.
    onNotice: (message) => process.stderr.write(`keyplane: note: ${message}\n`),
  });
  return { url: embedded.url, release: () => embedded.stop() };
}
