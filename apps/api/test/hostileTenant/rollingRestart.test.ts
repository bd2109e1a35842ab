import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../../bench/server.ts';
import { spentAndRecorded } from '../dbInspect.ts';
import { callAt, REDIS_URL } from '../harness.ts';

// A rolling restart of two real server processes under keep-alive load from many clients, behind a
// balancer that routes by readiness as docs/operations.md#rolling-restarts describes: every node is
// stopped with SIGTERM in turn and replaced, and not one request fails.

const CLIENTS = 20;
/** Longer than the balancer takes to see a node's readiness turn to 503. */
const DRAIN_DELAY_MS = 1500;
const READINESS_POLL_MS = 100;
const CREDITS = 1_000_000;

const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const database of databases) await database.drop();
});

/** A database of the test's own, on which its nodes run (the first one bootstraps a workspace). */
async function newDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  databases.push(database);
  return database;
}

const startNode = (database: TestDatabase) =>
  spawnServer({
    DATABASE_URL: database.url,
    SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
    ...(REDIS_URL ? { REDIS_URL } : {}),
  });

/**
 * Two nodes on a database of their own, and a key with `credits` (none when omitted) made through
 * the first one, with the root key the first node bootstrapped.
 */
async function twoNodesAndAKey(name: string, credits?: number) {
  const database = await newDatabase();
  const first = await startNode(database);
  const second = await startNode(database);
  const rootKey = first.rootKey;
  if (!rootKey) throw new Error('the first node did not bootstrap the database');
  const { apiId } = (await callAt(first.url, 'apis.createApi', { name }, rootKey)).body.data;
  const created = await callAt(
    first.url,
    'keys.createKey',
    { apiId, ...(credits === undefined ? {} : { credits: { remaining: credits } }) },
    rootKey,
  );
  const { keyId, key } = created.body.data as { keyId: string; key: string };
  return { database, first, second, rootKey, keyId, key };
}

/**
 * What a load balancer does: asks each node's readiness every READINESS_POLL_MS, and sends each
 * request to the next node that answered 200 last time.
 */
function readinessBalancer() {
  const ready = new Map<SpawnedServer, boolean>();
  let turn = 0;
  let polling = true;
  const poll = async (node: SpawnedServer) => {
    try {
      const response = await fetch(`${node.url}/v2/readiness`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (ready.has(node)) ready.set(node, response.status === 200);
    } catch {
      if (ready.has(node)) ready.set(node, false);
    }
  };
  const polled = (async () => {
    while (polling) {
      await Promise.all([...ready.keys()].map(poll));
      await sleep(READINESS_POLL_MS);
    }
  })();
  return {
    add(node: SpawnedServer) {
      ready.set(node, false);
    },
    remove(node: SpawnedServer) {
      ready.delete(node);
    },
    isReady: (node: SpawnedServer) => ready.get(node) === true,
    pick(): SpawnedServer {
      const candidates = [...ready].filter(([, isReady]) => isReady).map(([node]) => node);
      const node = candidates[turn++ % candidates.length];
      if (!node) throw new Error('no node is ready');
      return node;
    },
    async stop() {
      polling = false;
      await polled;
    },
  };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

describe('a rolling restart under keep-alive load', () => {
  it('fails no request, and every answer had its effect', async () => {
    const { database, first, second, rootKey, keyId, key } = await twoNodesAndAKey('rolling', CREDITS);

    const balancer = readinessBalancer();
    balancer.add(first);
    balancer.add(second);
    await until(() => balancer.isReady(first) && balancer.isReady(second), 'both nodes are ready');

    const answered = new Set<string>();
    const failures: string[] = [];
    let loading = true;
    const client = async () => {
      while (loading) {
        const node = balancer.pick();
        try {
          const response = await fetch(`${node.url}/v2/keys.verifyKey`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
            body: JSON.stringify({ key }),
          });
          const body = (await response.json()) as { meta: { requestId: string }; data?: { valid: boolean } };
          if (response.status !== 200 || body.data?.valid !== true) {
            failures.push(`${response.status} ${JSON.stringify(body)}`);
          } else {
            answered.add(body.meta.requestId);
          }
        } catch (error) {
          failures.push(`${node.url}: ${String((error as Error).cause ?? error)}`);
        }
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, client));
    const answersReach = (count: number) => until(() => answered.size >= count, `${count} answers`);

    // Each node in turn: SIGTERM in the middle of the load, a new node in its place.
    await answersReach(300);
    const firstExit = await first.stop();
    balancer.remove(first);
    const replacement = await startNode(database);
    balancer.add(replacement);
    await until(() => balancer.isReady(replacement), 'the replacement is ready');
    await answersReach(answered.size + 300);
    const secondExit = await second.stop();
    balancer.remove(second);
    await answersReach(answered.size + 300);
    loading = false;
    await clients;
    await balancer.stop();
    expect(await replacement.stop()).toBe(0);

    expect(failures).toEqual([]);
    expect([firstExit, secondExit]).toEqual([0, 0]);
    const { spent, requestIds } = await spentAndRecorded(database.orm.em.fork(), keyId, CREDITS);
    expect(spent).toBe(answered.size);
    expect(requestIds.length).toBe(answered.size);
  }, 120_000);
});

describe('a node stopped behind a balancer that does not read readiness', () => {
  it('fails no request: the balancer retries only requests it could not connect for, as nginx does', async () => {
    const { first, second, rootKey, key } = await twoNodesAndAKey('passive');
    const nodes = [first, second];
    let turn = 0;
    let answers = 0;
    const failures: string[] = [];
    let loading = true;
    const client = async () => {
      while (loading) {
        // The next node, and the one after it when no connection to the first could be made.
        for (let tries = 0; tries < nodes.length; tries++) {
          const node = nodes[turn++ % nodes.length] as SpawnedServer;
          try {
            const response = await fetch(`${node.url}/v2/keys.verifyKey`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
              body: JSON.stringify({ key }),
            });
            await response.arrayBuffer();
            if (response.status === 200) answers++;
            else failures.push(String(response.status));
            break;
          } catch (error) {
            // No connection, no request sent: nginx's `proxy_next_upstream error` tries the next node.
            const cause = (error as { cause?: { syscall?: string } }).cause;
            if (cause?.syscall === 'connect') continue;
            failures.push(`${node.url}: ${String(cause ?? error)}`);
            break;
          }
        }
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, client));
    await until(() => answers >= 300, '300 answers');
    expect(await first.stop()).toBe(0);
    const after = answers;
    await until(() => answers >= after + 300, '300 more answers');
    loading = false;
    await clients;
    await second.stop();
    expect(failures).toEqual([]);
  }, 120_000);
});
