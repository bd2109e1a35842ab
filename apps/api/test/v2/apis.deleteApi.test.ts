import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../../bench/server.ts';
import { expectInvalidInput, expectMissingPermissions, expectProblem } from '../assertions.ts';
import { storedKey } from '../dbInspect.ts';
import { type NewKeyInput, useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey, ERRORS_BASE_URL, REDIS_URL } from '../harness.ts';
import { verification } from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace({ vault: true });

const newKey = (apiId: string, body: NewKeyInput = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const deleteApi = (body: InputOf<'apis.deleteApi'>, rootKey = workspace.rootKey) =>
  api.call('apis.deleteApi', body, rootKey);
const verify = (key: string) => verification(api, workspace.rootKey, key);

/** The API row's deletion time in unix ms; null while it is live. */
async function apiDeletedAt(apiId: string) {
  const [row] = await rows(
    api.em(),
    sql<{ deletedAt: number | null }>`
      select (extract(epoch from deleted_at) * 1000)::float8 as "deletedAt" from apis where id = ${apiId}`,
  );
  if (!row) throw new Error(`no API row ${apiId}`);
  return row.deletedAt;
}

describe('200', () => {
  it('answers an empty object and soft-deletes the API, leaving its key rows in place', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { keyId } = await newKey(apiId);
    const reply = await deleteApi({ apiId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await apiDeletedAt(apiId)).toBeGreaterThan(Date.now() - 60_000);
    expect((await storedKey(api.em(), keyId))?.api_id).toBe(apiId);
    expect((await api.post('apis.getApi', { apiId }, workspace.rootKey)).status).toBe(404);
  });

  it('makes a key whose verification was cached answer NOT_FOUND at once', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { key } = await newKey(apiId);
    // Twice: the second answer comes from this node's cache.
    expect(await verify(key)).toMatchObject({ valid: true, code: 'VALID' });
    expect(await verify(key)).toMatchObject({ valid: true, code: 'VALID' });
    expect((await deleteApi({ apiId })).status).toBe(200);
    expect(await verify(key)).toMatchObject({ valid: false, code: 'NOT_FOUND' });
  });

  it('makes its keys 404 in every key procedure, and the API 404 everywhere', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { keyId, key } = await newKey(apiId, { credits: { remaining: 5 } });
    expect((await api.post('keys.getKey', { keyId }, workspace.rootKey)).status).toBe(200);
    expect((await deleteApi({ apiId })).status).toBe(200);

    const calls: [string, Record<string, unknown>][] = [
      ['keys.getKey', { keyId }],
      ['keys.whoami', { key }],
      ['keys.updateKey', { keyId, name: 'renamed' }],
      ['keys.updateCredits', { keyId, operation: 'set', value: 9 }],
      ['keys.addPermissions', { keyId, permissions: ['documents.read'] }],
      ['keys.rerollKey', { keyId, expiration: 0 }],
      ['keys.deleteKey', { keyId }],
      ['apis.listKeys', { apiId }],
      ['apis.getApi', { apiId }],
      ['apis.updateApi', { apiId, name: 'renamed' }],
      ['keys.createKey', { apiId }],
    ];
    for (const [procedure, body] of calls) {
      const reply = await api.post(procedure, body, workspace.rootKey);
      expect({ procedure, status: reply.status }).toEqual({ procedure, status: 404 });
    }
    // Nothing those calls attempted took effect on the row.
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('5');
  });

  it('leaves the workspace’s other APIs and their keys alone', async () => {
    const doomed = await createTestApi(api, workspace.rootKey);
    const kept = await createTestApi(api, workspace.rootKey);
    const { key } = await newKey(kept);
    expect((await verify(key)).code).toBe('VALID');
    expect((await deleteApi({ apiId: doomed })).status).toBe(200);
    expect((await verify(key)).code).toBe('VALID');
    expect((await api.post('apis.getApi', { apiId: kept }, workspace.rootKey)).status).toBe(200);
    expect(await apiDeletedAt(kept)).toBeNull();
  });

  it.each([['api.API_ID.delete_api'], ['api.*.delete_api'], ['apis.*.delete_api']])(
    'with the grant %s',
    async (grant) => {
      const apiId = await createTestApi(api, workspace.rootKey);
      const { rootKey } = await workspace.rootKeyWith([grant.replace('API_ID', apiId)]);
      expect((await deleteApi({ apiId }, rootKey)).status).toBe(200);
    },
  );

  it('once delete protection is turned off again', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { deleteProtection: true });
    await api.post('apis.updateApi', { apiId, deleteProtection: false }, workspace.rootKey);
    expect((await deleteApi({ apiId })).status).toBe(200);
  });
});

describe('200 on every node', () => {
  // Two real server processes on one database: the other node must not answer from its cache.
  let database: TestDatabase;
  let nodes: SpawnedServer[] = [];
  let rootKey: string;
  const call = async <T>(node: SpawnedServer | undefined, procedure: string, body: unknown) => {
    if (!node) throw new Error('no node');
    const response = await fetch(`${node.url}/v2/${procedure}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, data: ((await response.json()) as { data: T }).data };
  };

  beforeAll(async () => {
    database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    const env = { DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) };
    const first = await spawnServer(env);
    nodes = [first, await spawnServer(env)];
    if (!first.rootKey) throw new Error('the first node did not bootstrap the database');
    rootKey = first.rootKey;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await database?.drop();
  });

  it('a key verified (and cached) on the other node is NOT_FOUND there as soon as the delete returns', async () => {
    const [nodeA, nodeB] = nodes;
    const { apiId } = (await call<{ apiId: string }>(nodeA, 'apis.createApi', { name: 'doomed' })).data;
    const { keyId, key } = (await call<{ keyId: string; key: string }>(nodeA, 'keys.createKey', { apiId })).data;
    const verifyOnB = async () => (await call<{ valid: boolean; code: string }>(nodeB, 'keys.verifyKey', { key })).data;
    expect((await verifyOnB()).code).toBe('VALID');
    expect((await verifyOnB()).code).toBe('VALID');
    // The delete answers only once the listeners have been handed its announcement.
    expect((await call(nodeA, 'apis.deleteApi', { apiId })).status).toBe(200);
    expect(await verifyOnB()).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    expect((await call(nodeB, 'keys.getKey', { keyId })).status).toBe(404);
  });
});

describe('400', () => {
  it.each([
    ['missing', {}],
    ['too short', { apiId: 'ab' }],
    ['with a forbidden character', { apiId: 'api-1' }],
    ['of the wrong type', { apiId: 12345678 }],
  ])('rejects an apiId %s', async (_, body) => {
    expectInvalidInput(await api.post('apis.deleteApi', body, workspace.rootKey), 'body.apiId');
  });

  it('rejects unknown fields, and deletes nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    expectInvalidInput(
      await api.post('apis.deleteApi', { apiId, permanent: true }, workspace.rootKey),
      'body.permanent',
    );
    expect(await apiDeletedAt(apiId)).toBeNull();
  });
});

describe('401', () => {
  it('with an unknown root key, deleting nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    expect((await deleteApi({ apiId }, 'unknown_root_key')).status).toBe(401);
    expect(await apiDeletedAt(apiId)).toBeNull();
  });
});

describe('403', () => {
  it('without delete_api, naming it, and deletes nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api', 'api.*.update_api', 'api.*.delete_key']);
    const reply = await deleteApi({ apiId }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.delete_api`);
    expect(await apiDeletedAt(apiId)).toBeNull();
  });

  it('with delete_api for another API only', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.api_other.delete_api']);
    expect((await deleteApi({ apiId }, rootKey)).status).toBe(403);
  });

  it('before the lookup: for an API that does not exist', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expect((await deleteApi({ apiId: 'api_doesnotexist' }, rootKey)).status).toBe(403);
  });

  it('before delete protection', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { deleteProtection: true });
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expect((await deleteApi({ apiId }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for an API that does not exist', async () => {
    expectProblem(await deleteApi({ apiId: 'api_doesnotexist' }), 404, 'service/data/api_not_found');
  });

  it('for an API deleted already, leaving the first deletion time alone', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    expect((await deleteApi({ apiId })).status).toBe(200);
    const firstDeletion = await apiDeletedAt(apiId);
    expectProblem(await deleteApi({ apiId }), 404, 'service/data/api_not_found');
    expect(await apiDeletedAt(apiId)).toEqual(firstDeletion);
  });

  it('for a deleted API even with delete protection set on its row', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await rows(api.em(), sql`update apis set deleted_at = now(), delete_protection = true where id = ${apiId}`);
    expect((await deleteApi({ apiId })).status).toBe(404);
  });
});

describe('412', () => {
  it('with delete protection, deleting nothing', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { deleteProtection: true });
    const { keyId, key } = await newKey(apiId);
    const reply = await deleteApi({ apiId });
    expect(reply.status).toBe(412);
    expect(reply.body.error).toMatchObject({
      status: 412,
      type: `${ERRORS_BASE_URL}/service/application/protected_resource`,
      detail: 'This API has delete protection enabled. Disable it before attempting to delete.',
    });
    expect(await apiDeletedAt(apiId)).toBeNull();
    expect((await api.post('apis.getApi', { apiId }, workspace.rootKey)).status).toBe(200);
    expect((await verify(key)).code).toBe('VALID');
    expect((await api.post('keys.getKey', { keyId }, workspace.rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("does not find another workspace's API, even with every permission, and deletes nothing", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { key } = await newKey(apiId);
    const intruder = await api.workspace();
    const reply = await deleteApi({ apiId }, intruder.rootKey);
    expect(reply.status).toBe(404);
    expect(await apiDeletedAt(apiId)).toBeNull();
    expect((await verify(key)).code).toBe('VALID');
  });

  it("answers 404, not 412, for another workspace's protected API", async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { deleteProtection: true });
    const intruder = await api.workspace();
    expect((await deleteApi({ apiId }, intruder.rootKey)).status).toBe(404);
  });
});
