import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { eventTransaction, verificationTable } from '@keyplane/events';
import { testVerificationEvent, writeEvents } from '@keyplane/events/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { callAt, REDIS_URL, type ReplyOf } from './harness.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

// ANALYTICS_DATABASE_URL (a read replica, say): analytics queries read that database, and every
// other call the main one. Here the two differ on purpose, to show which one each call reads.

let primary: TestDatabase;
let replica: TestDatabase;
let server: SpawnedServer;
let rootKey: string;

async function call<P extends ProcedurePath>(
  procedure: P,
  input: InputOf<P>,
): Promise<{ status: number; data: ReplyOf<P>['body']['data'] }> {
  const { status, body } = await callAt(server.url, procedure, input, rootKey);
  return { status, data: body.data };
}

beforeAll(async () => {
  primary = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  replica = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  server = await spawnServer({
    DATABASE_URL: primary.url,
    ANALYTICS_DATABASE_URL: replica.url,
    ...(REDIS_URL ? { REDIS_URL } : {}),
  });
  if (!server.rootKey) throw new Error('the server did not bootstrap the database');
  rootKey = server.rootKey;
  const [workspace] = await rows(primary.orm.em.fork(), sql<{ id: string }>`select id from workspaces`);
  const events = Array.from({ length: 3 }, (_, i) =>
    testVerificationEvent({
      requestId: `req_replica_${i}`,
      workspaceId: workspace?.id ?? '',
      apiId: 'api_replica',
      keyId: 'key_replica',
    }),
  );
  await eventTransaction(replica.orm, (tx) => writeEvents(tx, verificationTable, events));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await primary?.drop();
  await replica?.drop();
});

describe('ANALYTICS_DATABASE_URL', () => {
  it('analytics queries read that database', async () => {
    const reply = await call('analytics.getVerifications', {
      query: 'select key_id, count(*) as n from key_verifications_v1 group by key_id',
    });
    expect(reply).toEqual({ status: 200, data: [{ key_id: 'key_replica', n: 3 }] });
  });

  it('verification and management use DATABASE_URL', async () => {
    const { data: api } = await call('apis.createApi', { name: 'primary' });
    const { data: key } = await call('keys.createKey', { apiId: api.apiId });
    expect(await call('keys.verifyKey', { key: key.key })).toMatchObject({ status: 200, data: { valid: true } });
    const [stored] = await rows(replica.orm.em.fork(), sql<{ n: number }>`select count(*)::int as n from apis`);
    expect(stored?.n).toBe(0);
  });
});
