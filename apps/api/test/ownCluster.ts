import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, inject } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { type OwnRedisCluster, startOwnRedisCluster } from '../../../packages/ratelimit/test/ownRedis.ts';

export interface ServersOnOwnCluster {
  cluster: OwnRedisCluster;
  /** A cluster client of the test's own, for reading slots and counters. */
  admin: Cluster;
  database: TestDatabase;
  /** The server processes, in the order of their environments; a test may replace one. */
  nodes: SpawnedServer[];
  /** The root key the first node bootstrapped the database with. */
  rootKey: string;
}

/**
 * A Redis Cluster of three masters and a database, both the file's own, and one server process per
 * environment `environments` gives, started one after the other before the file's tests (the first
 * bootstraps the database) and stopped after them. The fields are filled in by `beforeAll`.
 */
export function useServersOnOwnCluster(
  environments: (on: { cluster: OwnRedisCluster; database: TestDatabase }) => Parameters<typeof spawnServer>[0][],
): ServersOnOwnCluster {
  const servers = { nodes: [] as SpawnedServer[] } as ServersOnOwnCluster;
  beforeAll(async () => {
    servers.cluster = await startOwnRedisCluster();
    servers.admin = new Cluster(servers.cluster.nodes);
    servers.database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    for (const environment of environments(servers)) servers.nodes.push(await spawnServer(environment));
    const rootKey = servers.nodes[0]?.rootKey;
    if (!rootKey) throw new Error('the first node did not bootstrap the database');
    servers.rootKey = rootKey;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.nodes.map((node) => node.stop()));
    await servers.database?.drop();
    servers.admin?.disconnect();
    await servers.cluster?.kill();
  });
  return servers;
}
