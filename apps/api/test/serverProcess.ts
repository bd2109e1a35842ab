import { loadEnv } from '@keyplane/config';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { inject } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';

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
