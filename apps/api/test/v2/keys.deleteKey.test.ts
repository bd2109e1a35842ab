import { setTimeout as sleep } from 'node:timers/promises';
import { createChangeLog } from '@keyplane/caches';
import { deleteKey as deleteKeyRecord, rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, invalidInputCheck, itRejectsField } from '../assertions.ts';
import { createRole, storedKey } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { INVALID_RESOURCE_IDS, itAnswersAMissingKeyNotFound, verification } from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api, { vault: true, settings: { encryption: { enabled: true } } });

const { newKey } = owner;
const deleteKey = (body: InputOf<'keys.deleteKey'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.deleteKey', body, rootKey);
const verifyCode = (key: string) => verification(api, owner.workspace.rootKey, key);

/** Rows that hang off a key: what a permanent delete must take along. */
async function attachedRows(keyId: string) {
  const [counts] = await rows(
    api.em(),
    sql<{ keys: number; ratelimits: number; permissions: number; roles: number }>`
      select (select count(*)::int from keys where id = ${keyId}) as keys,
             (select count(*)::int from ratelimits where key_id = ${keyId}) as ratelimits,
             (select count(*)::int from keys_permissions where key_id = ${keyId}) as permissions,
             (select count(*)::int from keys_roles where key_id = ${keyId}) as roles`,
  );
  return counts;
}

async function deletedAt(keyId: string) {
  const [row] = await rows(
    api.em(),
    sql<{ deleted: boolean }>`select deleted_at is not null as deleted from keys where id = ${keyId}`,
  );
  return row?.deleted;
}

describe('200', () => {
  it('soft-deletes: the key then verifies NOT_FOUND at once, though this node had it cached', async () => {
    const { keyId, key } = await newKey();
    expect(await verifyCode(key)).toMatchObject({ valid: true, code: 'VALID' });
    const reply = await deleteKey({ keyId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await verifyCode(key)).toEqual({ valid: false, code: 'NOT_FOUND' });
    expect(await deletedAt(keyId)).toBe(true);
  });

  it('makes the key 404 for every procedure', async () => {
    const { keyId, key } = await newKey();
    await deleteKey({ keyId });
    expect((await api.post('keys.getKey', { keyId }, owner.workspace.rootKey)).status).toBe(404);
    expect((await api.post('keys.whoami', { key }, owner.workspace.rootKey)).status).toBe(404);
    expect(
      (await api.post('keys.updateCredits', { keyId, operation: 'set', value: 1 }, owner.workspace.rootKey)).status,
    ).toBe(404);
    expect((await api.post('keys.rerollKey', { keyId, expiration: 0 }, owner.workspace.rootKey)).status).toBe(404);
    expect((await deleteKey({ keyId })).status).toBe(404);
  });

  it('permanently removes the row with its links, rate limits and ciphertext', async () => {
    await createRole(api.em(), owner.workspace.workspaceId, 'doomed-role');
    const { keyId, key } = await newKey({
      recoverable: true,
      permissions: ['doomed.read'],
      roles: ['doomed-role'],
      ratelimits: [{ name: 'doomed', limit: 1, duration: 1000 }],
    });
    expect(await attachedRows(keyId)).toEqual({ keys: 1, ratelimits: 1, permissions: 1, roles: 1 });
    expect(await verifyCode(key)).toMatchObject({ code: 'VALID' });
    expect((await deleteKey({ keyId, permanent: true })).status).toBe(200);
    expect(await attachedRows(keyId)).toEqual({ keys: 0, ratelimits: 0, permissions: 0, roles: 0 });
    expect(await storedKey(api.em(), keyId)).toBeUndefined();
    expect(await verifyCode(key)).toEqual({ valid: false, code: 'NOT_FOUND' });
  });

  it('soft-deletes by default, keeping the row', async () => {
    const { keyId } = await newKey();
    await deleteKey({ keyId, permanent: false });
    expect(await attachedRows(keyId)).toMatchObject({ keys: 1 });
  });

  it('announces the deletion to every node, not only through the local cache', async () => {
    const { keyId, key } = await newKey();
    const warmedAt = Date.now();
    expect(await verifyCode(key)).toMatchObject({ code: 'VALID' });
    // Deleting straight through the database layer skips this node's own eviction: only NOTIFY can reach the cache.
    await deleteKeyRecord(api.em(), createChangeLog(), owner.workspace.workspaceId, keyId, { permanent: false });
    let code = 'VALID';
    while (code === 'VALID' && Date.now() - warmedAt < 5000) {
      await sleep(10);
      code = (await verifyCode(key)).code;
    }
    expect(code).toBe('NOT_FOUND');
    // The cache keeps entries for 1 s, so an answer well before that came from the announcement.
    expect(Date.now() - warmedAt).toBeLessThan(900);
  });

  it.each([['api.*.delete_key'], ['apis.*.delete_key'], ['api.API_ID.delete_key']])(
    'with the grant %s',
    async (grant) => {
      const { keyId } = await newKey();
      const { rootKey } = await owner.workspace.rootKeyWith([grant.replace('API_ID', owner.apiId)]);
      expect((await deleteKey({ keyId }, rootKey)).status).toBe(200);
    },
  );
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'keys.deleteKey', () => owner.workspace.rootKey);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  it('rejects a permanent that is not a boolean', async () => {
    await expectInvalid({ keyId: 'key_abc', permanent: 'true' }, 'body.permanent');
  });

  it('rejects unknown fields, deleting nothing', async () => {
    const { keyId } = await newKey();
    await expectInvalid({ keyId, hard: true }, 'body.hard');
    expect(await deletedAt(keyId)).toBe(false);
  });
});

describe('401', () => {
  it('with an unknown root key, deleting nothing', async () => {
    const { keyId } = await newKey();
    expect((await deleteKey({ keyId }, 'unknown_root_key')).status).toBe(401);
    expect(await deletedAt(keyId)).toBe(false);
  });
});

describe('403', () => {
  it('without delete_key, naming it, and the key keeps working', async () => {
    const { keyId, key } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_key', 'api.*.update_key']);
    const reply = await deleteKey({ keyId, permanent: true }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.delete_key`);
    expect(await verifyCode(key)).toMatchObject({ code: 'VALID' });
  });

  it('with delete_key for another API only', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.delete_key']);
    expect((await deleteKey({ keyId }, rootKey)).status).toBe(403);
    expect(await deletedAt(keyId)).toBe(false);
  });
});

describe('404', () => {
  itAnswersAMissingKeyNotFound(api, owner, 'keys.deleteKey', 'api.*.delete_key');

  it('for a soft-deleted key, also when asked to delete it permanently', async () => {
    const { keyId } = await newKey();
    await deleteKey({ keyId });
    expect((await deleteKey({ keyId, permanent: true })).status).toBe(404);
    expect(await attachedRows(keyId)).toMatchObject({ keys: 1 });
  });
});

describe('cross-workspace isolation', () => {
  it("cannot delete another workspace's key, which keeps working", async () => {
    const { keyId, key } = await newKey();
    const intruder = await api.workspace();
    expect((await deleteKey({ keyId }, intruder.rootKey)).status).toBe(404);
    expect((await deleteKey({ keyId, permanent: true }, intruder.rootKey)).status).toBe(404);
    expect(await attachedRows(keyId)).toMatchObject({ keys: 1 });
    expect(await verifyCode(key)).toMatchObject({ code: 'VALID' });
  });
});
