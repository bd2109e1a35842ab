import { loadEnv } from '@keyplane/config';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, inject } from 'vitest';
import { type SpawnedServer, type SpawnOptions, spawnServer } from '../../../bench/server.ts';

export interface ServerProcess extends SpawnedServer {
  /** The migrated database of its own the server runs on (dropped by `stop`). */
  database: TestDatabase;
  /** Stops the server as an operator would (SIGTERM), then drops its database; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * A Keyplane server as it runs in production, its own process, on a fresh migrated database (and the
 * test environment's Redis, if any), for tests that drive it from outside: SDKs, clients, examples,
 * configuration read at start-up. `prepare` runs on the database before the server starts.
 */
export async function startServerProcess(
  env: Record<string, string> = {},
  prepare?: (databaseUrl: string) => Promise<void>,
): Promise<ServerProcess> {
  const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const { REDIS_URL } = loadEnv();
  try {
    await prepare?.(database.url);
    const server = await spawnServer({ DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}), ...env });
    return {
      ...server,
      database,
      async stop() {
        const code = await server.stop();
        await database.drop();
        return code;
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** The root key a server printed as it created its workspace (every permission); throws if it printed none. */
export function bootstrapRootKey(server: SpawnedServer): string {
  if (server.rootKey === undefined) throw new Error('the server printed no bootstrap root key');
  return server.rootKey;
}

/**
 * A migrated database of the test file's own, made before its tests and dropped after them, and
 * `spawn` to start server processes on it (with the environment's Redis, if any) that a test stops.
 */
export function useOwnDatabase() {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  });
  afterAll(async () => {
    await database?.drop();
  });
  const ready = (): TestDatabase => {
    if (!database) throw new Error('useOwnDatabase() is used before its beforeAll ran');
    return database;
  };
  return {
    get database() {
      return ready();
    },
    spawn(env: Record<string, string> = {}, options?: SpawnOptions): Promise<SpawnedServer> {
      const { REDIS_URL } = loadEnv();
      return spawnServer({ DATABASE_URL: ready().url, ...(REDIS_URL ? { REDIS_URL } : {}), ...env }, options);
    },
  };
}
