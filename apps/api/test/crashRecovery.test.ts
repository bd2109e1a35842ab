import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { callAt, REDIS_URL, type ReplyOf } from './harness.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

/** Verifications and ratelimit decisions answered before the server is killed. */
const KILL_AFTER_ANSWERS = 1500;
const VERIFYING_CONNECTIONS = 24;
const LIMITING_CONNECTIONS = 8;

let database: TestDatabase;
let spoolDir: string;
const servers: SpawnedServer[] = [];

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  spoolDir = await mkdtemp(join(tmpdir(), 'keyplane-crash-'));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database.drop();
  await rm(spoolDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<SpawnedServer> {
  const server = await spawnServer(env);
  servers.push(server);
  return server;
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function spooledSegments(): Promise<string[]> {
  return (await readdir(spoolDir, { recursive: true })).filter((path) => path.endsWith('.seg'));
}

/** How often each request id was recorded, and the events counted by each rollup. */
async function recorded(table: 'key_verifications' | 'ratelimit_events', where: ReturnType<typeof sql>) {
  const em = database.orm.em.fork();
  const perRequest = await rows(
    em,
    sql<{ requestId: string; times: number }>`
      select request_id as "requestId", count(*)::int as times from ${sql.table(table)} where ${where}
      group by request_id`,
  );
  const rollups: Record<string, number> = {};
  for (const granularity of ['minute', 'hour', 'day', 'month']) {
    const [total] = await rows(
      em,
      sql<{ count: number }>`select coalesce(sum(count), 0)::int as count
                             from ${sql.table(`${table}_per_${granularity}`)} where ${where}`,
    );
    rollups[granularity] = total?.count ?? 0;
  }
  return { perRequest, rollups };
}

describe('a server killed (SIGKILL) under load', () => {
  it('loses no event it answered: the next server replays its spool, counting each event once', async () => {
    const env = { DATABASE_URL: database.url, EVENT_SPOOL_DIR: spoolDir, ...(REDIS_URL ? { REDIS_URL } : {}) };
    const first = await start(env);
    const rootKey = first.rootKey;
    if (!rootKey) throw new Error('the server did not bootstrap the database');
    const { apiId } = (await callAt(first.url, 'apis.createApi', { name: 'crash' }, rootKey)).body.data;
    const { keyId, key } = (await callAt(first.url, 'keys.createKey', { apiId }, rootKey)).body.data;
    const identifier = 'crash-test';

    const answered = { verifications: new Set<string>(), decisions: new Set<string>() };
    let killed: Promise<number | null> | undefined;
    /** Requests that got no answer because of the kill: each may or may not have been recorded. */
    let cutOff = 0;
    const connection = async <P extends ProcedurePath>(procedure: P, input: InputOf<P>, answers: Set<string>) => {
      while (!killed) {
        let answer: ReplyOf<P>;
        try {
          answer = await callAt(first.url, procedure, input, rootKey);
        } catch (error) {
          if (!killed) throw error;
          cutOff++;
          return;
        }
        expect(answer.status).toBe(200);
        answers.add(answer.body.meta.requestId);
        if (answered.verifications.size + answered.decisions.size >= KILL_AFTER_ANSWERS) killed ??= first.kill();
      }
    };
    await Promise.all([
      ...Array.from({ length: VERIFYING_CONNECTIONS }, () =>
        connection('keys.verifyKey', { key }, answered.verifications),
      ),
      ...Array.from({ length: LIMITING_CONNECTIONS }, () =>
        connection(
          'ratelimit.limit',
          { namespace: 'crash', identifier, limit: 1_000_000, duration: 60_000 },
          answered.decisions,
        ),
      ),
    ]);
    await killed;

    await start(env);
    await until(async () => (await spooledSegments()).length === 0, 'the spool to be replayed');

    for (const [events, answers] of [
      [await recorded('key_verifications', sql`key_id = ${keyId}`), answered.verifications],
      [await recorded('ratelimit_events', sql`identifier = ${identifier}`), answered.decisions],
    ] as const) {
      const requestIds = events.perRequest.map(({ requestId }) => requestId);
      // Nothing answered is lost...
      expect([...answers].filter((requestId) => !requestIds.includes(requestId))).toEqual([]);
      // ...nothing is counted twice, raw or rolled up...
      expect(events.perRequest.filter(({ times }) => times > 1)).toEqual([]);
      expect(events.rollups).toEqual({
        minute: requestIds.length,
        hour: requestIds.length,
        day: requestIds.length,
        month: requestIds.length,
      });
      // ...and nothing else is there but the requests the kill cut off: those happened (the key was
      // verified, the limit counted), so their events may be in the spool though no answer arrived.
      expect(requestIds.length - answers.size).toBeLessThanOrEqual(cutOff);
    }
  });
});
