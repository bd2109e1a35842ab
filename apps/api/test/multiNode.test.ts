import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { storedKey } from './dbInspect.ts';
import { REDIS_URL } from './harness.ts';

// Two real server processes on one PostgreSQL (and one Redis when there is one), as in production.
let database: TestDatabase;
let nodeA: SpawnedServer;
let nodeB: SpawnedServer;
let rootKey: string;
let apiId: string;

async function call<T>(node: SpawnedServer, procedure: string, body: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${node.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: T };
  return { status: response.status, data: parsed.data };
}
const verify = async (node: SpawnedServer, key: string) =>
  (await call<{ valid: boolean; code: string }>(node, 'keys.verifyKey', { key })).data;
const createKey = async (body: Record<string, unknown> = {}) =>
  (await call<{ keyId: string; key: string }>(nodeA, 'keys.createKey', { apiId, ...body })).data;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const env = { DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) };
  nodeA = await spawnServer(env);
  nodeB = await spawnServer(env);
  if (!nodeA.rootKey) throw new Error('the first node did not bootstrap the database');
  rootKey = nodeA.rootKey;
  apiId = (await call<{ apiId: string }>(nodeA, 'apis.createApi', { name: 'multi-node' })).data.apiId;
}, 60_000);

afterAll(async () => {
  await Promise.all([nodeA?.stop(), nodeB?.stop()]);
  await database?.drop();
});

describe('two server processes', () => {
  it('bootstrap only once', () => {
    expect(nodeB.rootKey).toBeUndefined();
  });

  it('spend credits exactly: N parallel verifications across both give exactly C valid answers', async () => {
    const { keyId, key } = await createKey({ credits: { remaining: 40 } });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) => verify(index % 2 === 0 ? nodeA : nodeB, key)),
    );
    expect(answers.filter((answer) => answer.valid)).toHaveLength(40);
    expect(answers.filter((answer) => answer.code === 'USAGE_EXCEEDED')).toHaveLength(60);
    expect((await storedKey(database.orm.em.fork(), keyId))?.credits_remaining).toBe('0');
  });

  it('see a deletion on the other node as soon as it returns', async () => {
    const { keyId, key } = await createKey();
    expect((await verify(nodeB, key)).code).toBe('VALID');
    expect((await call(nodeA, 'keys.deleteKey', { keyId })).status).toBe(200);
    expect((await verify(nodeB, key)).code).toBe('NOT_FOUND');
  });

  it('see a disabled key on the other node as soon as the update returns', async () => {
    const { keyId, key } = await createKey();
    expect((await verify(nodeA, key)).code).toBe('VALID');
    expect((await call(nodeB, 'keys.updateKey', { keyId, enabled: false })).status).toBe(200);
    expect((await verify(nodeA, key)).code).toBe('DISABLED');
  });
});
