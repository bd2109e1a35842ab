import { rows, sql } from '@keyplane/db';
import { inject } from 'vitest';
import { createHttp } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { startServices } from '../src/services.ts';
import {
  type Api,
  ERRORS_BASE_URL,
  MAX_BODY_BYTES,
  REDIS_URL,
  type Reply,
  replyOf,
  TEST_MASTER_KEY,
} from './harness.ts';

export interface SecondNode {
  post<TData = Record<string, unknown>>(procedure: string, body: unknown, rootKey: string): Promise<Reply<TData>>;
  stop(): Promise<void>;
}

/**
 * Another API node on the test file's database: caches of its own, kept fresh only by what it
 * hears through NOTIFY, as a second server process would be. For "every node sees the change".
 */
export async function startSecondNode(api: Api): Promise<SecondNode> {
  const [current] = await rows(api.orm.em.fork(), sql<{ name: string }>`select current_database() as name`);
  if (!current) throw new Error('no current database');
  const databaseUrl = new URL(inject('databaseUrl'));
  databaseUrl.pathname = `/${current.name}`;
  const running = await startServices({
    orm: api.orm,
    databaseUrl: databaseUrl.toString(),
    redisUrl: REDIS_URL,
    logger: silentLogger,
  });
  const { app } = createHttp({
    orm: api.orm,
    logger: silentLogger,
    errorsBaseUrl: ERRORS_BASE_URL,
    maxBodyBytes: MAX_BODY_BYTES,
    vaultMasterKey: TEST_MASTER_KEY,
    services: running.services,
  });
  return {
    async post<TData>(procedure: string, body: unknown, rootKey: string): Promise<Reply<TData>> {
      const response = await app.request(`/v2/${procedure}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
        body: JSON.stringify(body),
      });
      return replyOf<TData>(response);
    },
    stop: () => running.stop(),
  };
}
