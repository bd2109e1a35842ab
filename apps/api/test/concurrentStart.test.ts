import { createTestDatabase } from '@keyplane/db/testing';
import { createEmptyDatabase } from '@keyplane/testing';
import { describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { REDIS_URL } from './harness.ts';
import { UNREACHABLE_REDIS } from './ratelimit.ts';

// Start-up as a rolling deploy or an autoscaler does it: several nodes at the same moment on one
// database, fresh or not. Migrations run under an advisory lock (docs/contract.md, Migrations).

const redis: Record<string, string> = REDIS_URL ? { REDIS_URL } : {};

async function readiness(server: SpawnedServer): Promise<number> {
  return (await fetch(`${server.url}/v2/readiness`)).status;
}

describe('three server processes started at the same instant on an empty database', () => {
  it('all come up ready, the database migrated once and bootstrapped once', async () => {
    const empty = await createEmptyDatabase(inject('databaseUrl'));
    const started = await Promise.allSettled([1, 2, 3].map(() => spawnServer({ DATABASE_URL: empty.url, ...redis })));
    const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      expect(started.filter((result) => result.status === 'rejected')).toEqual([]);
      expect(await Promise.all(servers.map(readiness))).toEqual([200, 200, 200]);
      // The bootstrap lock lets exactly one of them create the workspace and print its root key.
      expect(servers.filter((server) => server.rootKey !== undefined)).toHaveLength(1);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await empty.drop();
    }
  }, 60_000);
});

describe('a node whose Redis does not answer', () => {
  it('waits for it a moment, then listens anyway and is not ready, naming Redis', async () => {
    const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    const started = Date.now();
    const server = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: UNREACHABLE_REDIS });
    try {
      expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
      const reply = await fetch(`${server.url}/v2/readiness`);
      expect(reply.status).toBe(503);
      expect(((await reply.json()) as { error: { detail: string } }).error.detail).toMatch(/Redis failed/);
    } finally {
      await server.stop();
      await database.drop();
    }
  }, 60_000);
});

describe('MIGRATE_ON_START=false', () => {
  it('refuses to start on a database that is behind, naming `keyplane migrate`', async () => {
    const empty = await createEmptyDatabase(inject('databaseUrl'));
    try {
      const start = spawnServer({ DATABASE_URL: empty.url, MIGRATE_ON_START: 'false', ...redis });
      await expect(start).rejects.toThrow(/server exited with 1[\s\S]*keyplane migrate/);
    } finally {
      await empty.drop();
    }
  }, 60_000);

  it('starts on a database that is up to date', async () => {
    const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    const server = await spawnServer({ DATABASE_URL: database.url, MIGRATE_ON_START: 'false', ...redis });
    try {
      expect(await readiness(server)).toBe(200);
    } finally {
      await server.stop();
      await database.drop();
    }
  }, 60_000);
});
