import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, inject } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { filledBeforeAll } from './filledBeforeAll.ts';
import { callAt, REDIS_URL, type ReplyOf } from './harness.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

/**
 * Per test file: two real server processes on a database of their own, and on the environment's
 * Redis when it has one (CI does), as in production. The first one bootstraps the workspace.
 * `extraEnv` is added to both nodes' environment.
 */
export function useTwoNodes(extraEnv: Record<string, string> = {}) {
  let database: TestDatabase | undefined;
  const started: SpawnedServer[] = [];
  const nodes = filledBeforeAll<{
    nodeA: SpawnedServer;
    nodeB: SpawnedServer;
    rootKey: string;
    database: TestDatabase;
  }>('useTwoNodes');

  beforeAll(async () => {
    database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    const env = { DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}), ...extraEnv };
    const nodeA = await spawnServer(env);
    started.push(nodeA);
    const nodeB = await spawnServer(env);
    started.push(nodeB);
    if (!nodeA.rootKey) throw new Error('the first node did not bootstrap the database');
    nodes.fill({ nodeA, nodeB, rootKey: nodeA.rootKey, database });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((node) => node.stop()));
    await database?.drop();
  });

  // rootKey: the bootstrap root key, every permission in the first workspace.
  return Object.assign(nodes.fields('nodeA', 'nodeB', 'rootKey', 'database'), {
    /** POST /v2/<procedure> to one node with the bootstrap root key and the procedure's input, typed by the router. */
    callProcedure<P extends ProcedurePath>(node: SpawnedServer, procedure: P, input: InputOf<P>): Promise<ReplyOf<P>> {
      return callAt(node.url, procedure, input, nodes.read().rootKey);
    },
    /** POST /v2/<procedure> to one node with the bootstrap root key and any body, untyped. */
    async call<T>(node: SpawnedServer, procedure: string, body: unknown): Promise<{ status: number; data: T }> {
      const response = await fetch(`${node.url}/v2/${procedure}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${nodes.read().rootKey}` },
        body: JSON.stringify(body),
      });
      const parsed = (await response.json()) as { data: T };
      return { status: response.status, data: parsed.data };
    },
  });
}
