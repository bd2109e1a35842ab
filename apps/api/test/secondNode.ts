import { rows, sql } from '@keyplane/db';
import { afterAll, beforeAll, inject } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { silentLogger } from '../src/log.ts';
import { startServices } from '../src/services.ts';
import { serveOn } from './appVariants.ts';
import { type Api, REDIS_URL, type ReplyOf } from './harness.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

export interface SecondNode {
  /** POST /v2/<procedure> on this node with the procedure's input; its 200 body typed by the router. */
  call<P extends ProcedurePath>(procedure: P, input: InputOf<P>, rootKey: string): Promise<ReplyOf<P>>;
  stop(): Promise<void>;
}

/**
 * Another API node on the test file's database: caches of its own, kept fresh only by what it
 * hears through NOTIFY, as a second server process would be. For "every node sees the change".
 */
export async function startSecondNode(api: Api): Promise<SecondNode> {
  const [current] = await rows(api.em(), sql<{ name: string }>`select current_database() as name`);
  if (!current) throw new Error('no current database');
  const databaseUrl = new URL(inject('databaseUrl'));
  databaseUrl.pathname = `/${current.name}`;
  const running = await startServices({
    orm: api.orm,
    databaseUrl: databaseUrl.toString(),
    redisUrl: REDIS_URL,
    logger: silentLogger,
    // Shared with the first node, as two processes on one machine share it.
    eventSpoolDir: api.spoolDir,
  });
  const server = await serveOn(api, { services: running.services });
  return {
    call: (procedure, input, rootKey) => server.call(procedure, input, rootKey),
    async stop() {
      await server.close();
      await running.stop();
    },
  };
}

/** A second node for the tests of the describe (or file) this is called in: started before them, stopped after. */
export function useSecondNode(api: Api): Pick<SecondNode, 'call'> {
  let node: SecondNode | undefined;
  beforeAll(async () => {
    node = await startSecondNode(api);
  });
  afterAll(async () => {
    await node?.stop();
  });
  return {
    call: (procedure, input, rootKey) => {
      if (!node) throw new Error('useSecondNode() is used before its beforeAll ran');
      return node.call(procedure, input, rootKey);
    },
  };
}

/**
 * A second server process (bench/server.ts, as `npm start` runs it) on the test file's database,
 * for the file's tests: started before them, stopped after. Its `fetch` reaches `/trpc` and `/v2`
 * of that process, as a browser whose next request lands on another node would.
 */
export function useOtherServerProcess(api: Pick<Api, 'databaseUrl'>): Pick<Api, 'fetch'> {
  let otherNode: SpawnedServer | undefined;
  beforeAll(async () => {
    otherNode = await spawnServer({ DATABASE_URL: api.databaseUrl, ...(REDIS_URL ? { REDIS_URL } : {}) });
  }, 60_000);
  afterAll(async () => {
    await otherNode?.stop();
  });
  return {
    fetch(path, init) {
      if (!otherNode) throw new Error('the other node is not started yet');
      return fetch(`${otherNode.url}${path}`, init);
    },
  };
}
