import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@keyplane/config';
import { startEmbeddedPostgres } from '@keyplane/embedded';
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one benchmark run: on the server of DATABASE_URL when it is set, else in an
 * embedded PostgreSQL in a temporary directory.
 */
export async function createDatabase(): Promise<BenchDatabase> {
  const env = loadEnv();
  if (!env.DATABASE_URL) {
    const dir = await mkdtemp(join(tmpdir(), 'keyplane-bench-'));
    const embedded = await startEmbeddedPostgres({ dataDir: dir, database: 'bench' });
    return {
      url: embedded.url,
      drop: async () => {
        await embedded.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `kp_bench_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`create database "${name}"`);
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database "${name}" with (force)`) };
}
