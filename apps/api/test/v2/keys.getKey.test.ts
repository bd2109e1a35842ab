import { randomBytes } from 'node:crypto';
import { createKeyMigration, rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectMissingPermissions, invalidInputCheck, itRejectsEach, itRejectsField } from '../assertions.ts';
import { addIdentityRatelimit, createRole, grantRolePermission, storedKey } from '../dbInspect.ts';
import { type NewKeyInput, useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, createTestKey, useApi } from '../harness.ts';
import {
  type DecryptingRead,
  everyKeyField,
  INVALID_RESOURCE_IDS,
  itAnswersAMissingKeyNotFound,
  itDecryptsOnlyWhereItCan,
  itHidesKeysFromOtherWorkspaces,
} from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const DAY = 86_400_000;

const api = useApi();
/** Encryption on, in a workspace with a vault. */
const owner = useWorkspaceWithApi(api, { vault: true, settings: { encryption: { enabled: true } } });

const newKey = (body: NewKeyInput = {}, targetApi = owner.apiId, rootKey = owner.workspace.rootKey) =>
  createTestKey(api, rootKey, { apiId: targetApi, ...body });
const getKey = (body: InputOf<'keys.getKey'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.getKey', body, rootKey);
const decryptingRead: DecryptingRead = {
  procedure: 'keys.getKey',
  input: ({ keyId }) => ({ keyId }),
  grants: (apiId) => [`api.${apiId}.read_key`],
};

describe('200', () => {
  it('reports when the key was last verified, once the batch of events is written', async () => {
    const { keyId, key } = await newKey();
    expect((await getKey({ keyId })).body.data.lastUsedAt).toBeUndefined();
    const before = Date.now();
    await api.post('keys.verifyKey', { key }, owner.workspace.rootKey);
    await api.services.verifications.flush();
    const lastUsedAt = (await getKey({ keyId })).body.data.lastUsedAt;
    expect(lastUsedAt).toBeGreaterThanOrEqual(before - 1);
    expect(lastUsedAt).toBeLessThanOrEqual(Date.now());
  });

  it('returns everything about the key', async () => {
    const roleId = await createRole(api.em(), owner.workspace.workspaceId, 'getkey-admin');
    await grantRolePermission(api.em(), owner.workspace.workspaceId, roleId, 'billing.read');
    await grantRolePermission(api.em(), owner.workspace.workspaceId, roleId, 'documents.read');
    const before = Date.now();
    const { keyId, key } = await newKey(everyKeyField('getkey'));
    const after = Date.now();
    const identityId = (await storedKey(api.em(), keyId))?.identity_id;
    if (!identityId) throw new Error('expected an identity');
    await addIdentityRatelimit(api.em(), owner.workspace.workspaceId, identityId, {
      name: 'shared',
      limit: 100,
      durationMs: 60_000,
      autoApply: false,
    });

    const reply = await getKey({ keyId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      keyId,
      start: key.slice(0, 'getkey_'.length + 4),
      enabled: true,
      name: 'Acme',
      meta: { plan: 'pro', seats: 3 },
      createdAt: expect.any(Number),
      expires: 4102444800000,
      permissions: ['billing.read', 'documents.read', 'documents.write'],
      roles: ['getkey-admin'],
      credits: { remaining: 10, refill: { interval: 'monthly', amount: 100, refillDay: 31 } },
      identity: {
        id: identityId,
        externalId: 'getkey_user',
        ratelimits: [
          { id: expect.stringMatching(/^rl_/), name: 'shared', limit: 100, duration: 60_000, autoApply: false },
        ],
      },
      ratelimits: [
        { id: expect.stringMatching(/^rl_/), name: 'per-second', limit: 5, duration: 1000, autoApply: true },
      ],
    });
    const createdAt = reply.body.data.createdAt as number;
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);
  });

  it('gives whole milliseconds for times the database stamped: updateCredits, rerollKey, migrateKeys', async () => {
    const { keyId } = await newKey({ credits: { remaining: 1 } });
    await api.post('keys.updateCredits', { keyId, operation: 'increment', value: 1 }, owner.workspace.rootKey);
    const credited = (await getKey({ keyId })).body.data;
    const rerolled = await api.call('keys.rerollKey', { keyId, expiration: 0 }, owner.workspace.rootKey);
    const migrationId = await createKeyMigration(api.em(), owner.workspace.workspaceId);
    const migrated = await api.call(
      'keys.migrateKeys',
      { migrationId, apiId: owner.apiId, keys: [{ hash: randomBytes(32).toString('hex') }] },
      owner.workspace.rootKey,
    );
    const times = [credited.createdAt, credited.updatedAt];
    for (const id of [keyId, rerolled.body.data.keyId, migrated.body.data.migrated[0]?.keyId]) {
      const reply = await getKey({ keyId: id ?? '' });
      expect(reply.status).toBe(200);
      times.push(reply.body.data.createdAt, reply.body.data.updatedAt ?? 0);
    }
    expect(times.every(Number.isInteger)).toBe(true);
  });

  it('gives back an expiry set from a JS time exactly', async () => {
    const expires = Date.now() + 123_457;
    const { keyId } = await newKey({ expires });
    expect((await getKey({ keyId })).body.data.expires).toBe(expires);
    await api.post('keys.updateKey', { keyId, expires: expires + 1 }, owner.workspace.rootKey);
    expect((await getKey({ keyId })).body.data.expires).toBe(expires + 1);
  });

  it('omits every empty field of a bare key', async () => {
    const { keyId } = await newKey();
    const reply = await getKey({ keyId });
    expect(Object.keys(reply.body.data).sort()).toEqual(['createdAt', 'enabled', 'keyId', 'start']);
  });

  it('shows a disabled key as such', async () => {
    const { keyId } = await newKey({ enabled: false });
    expect((await getKey({ keyId })).body.data.enabled).toBe(false);
  });

  it('shows a daily refill without refillDay', async () => {
    const { keyId } = await newKey({ credits: { remaining: 5, refill: { interval: 'daily', amount: 20 } } });
    expect((await getKey({ keyId })).body.data.credits).toEqual({
      remaining: 5,
      refill: { interval: 'daily', amount: 20 },
    });
  });

  it('shows credits of 0, and none for an unlimited key', async () => {
    const zero = await newKey({ credits: { remaining: 0 } });
    const unlimited = await newKey({ credits: { remaining: null } });
    expect((await getKey({ keyId: zero.keyId })).body.data.credits).toEqual({ remaining: 0 });
    expect((await getKey({ keyId: unlimited.keyId })).body.data).not.toHaveProperty('credits');
  });

  it('shows the balance after verifications spent credits', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 10 } });
    await api.post('keys.verifyKey', { key, credits: { cost: 3 } }, owner.workspace.rootKey);
    expect((await getKey({ keyId })).body.data.credits).toEqual({ remaining: 7 });
  });

  it('counts a refill whose boundary has passed, as verification will apply it, without writing', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 2, refill: { interval: 'daily', amount: 50 } } });
    const tomorrow = Date.now() + DAY;
    const later = await callOn(api, { now: tomorrow }, 'keys.getKey', { keyId }, owner.workspace.rootKey);
    expect(later.body.data.credits).toEqual({ remaining: 50, refill: { interval: 'daily', amount: 50 } });
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('2');
    expect((await getKey({ keyId })).body.data.credits?.remaining).toBe(2);
    const verified = await callOn(api, { now: tomorrow }, 'keys.verifyKey', { key }, owner.workspace.rootKey);
    expect(verified.body.data.credits).toBe(49);
  });

  it('returns the plaintext of a recoverable key with decrypt', async () => {
    const { keyId, key } = await newKey({ recoverable: true, prefix: 'rec' });
    const reply = await getKey({ keyId, decrypt: true });
    expect(reply.status).toBe(200);
    expect(reply.body.data.plaintext).toBe(key);
  });

  it('omits the plaintext without decrypt, and for a key that is not recoverable', async () => {
    const recoverable = await newKey({ recoverable: true });
    const plain = await newKey();
    expect((await getKey({ keyId: recoverable.keyId })).body.data).not.toHaveProperty('plaintext');
    const decrypted = await getKey({ keyId: plain.keyId, decrypt: true });
    expect(decrypted.status).toBe(200);
    expect(decrypted.body.data).not.toHaveProperty('plaintext');
  });

  it.each([['api.*.read_key'], ['apis.*.read_key'], ['api.API_ID.read_key']])('with the grant %s', async (grant) => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith([grant.replace('API_ID', owner.apiId)]);
    expect((await getKey({ keyId }, rootKey)).status).toBe(200);
  });

  it('decrypts with read_key and decrypt_key for the API', async () => {
    const { keyId, key } = await newKey({ recoverable: true });
    const { rootKey } = await owner.workspace.rootKeyWith([
      `api.${owner.apiId}.read_key`,
      `api.${owner.apiId}.decrypt_key`,
    ]);
    expect((await getKey({ keyId, decrypt: true }, rootKey)).body.data.plaintext).toBe(key);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'keys.getKey', () => owner.workspace.rootKey);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  itRejectsEach(api, 'keys.getKey', () => owner.workspace.rootKey, [
    [{ keyId: 'key_abc', decrypt: 'yes' }, 'body.decrypt'],
    // Unknown fields, such as the key string.
    [{ keyId: 'key_abc', key: 'sk_123' }, 'body.key'],
  ]);
});

describe('403', () => {
  it('without read_key, naming the wildcard: a key it may not read does not tell its API', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_api', 'api.*.create_key']);
    const reply = await getKey({ keyId }, rootKey);
    expectMissingPermissions(reply, 'api.*.read_key');
  });

  it('for a key that does not exist as for a key of another API, to a root key of one API', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.read_key']);
    const existing = await getKey({ keyId }, rootKey);
    const missing = await getKey({ keyId: 'key_doesnotexist' }, rootKey);
    expect(existing.body.error).toEqual(missing.body.error);
    expectMissingPermissions(missing, 'api.*.read_key');
  });

  it('with read_key for another API only', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.read_key']);
    expect((await getKey({ keyId }, rootKey)).status).toBe(403);
  });

  it('decrypting without decrypt_key, naming it', async () => {
    const { keyId } = await newKey({ recoverable: true });
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.read_key`]);
    const reply = await getKey({ keyId, decrypt: true }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.decrypt_key`);
  });

  it('for decrypt_key before the API encryption setting', async () => {
    const plainApi = await createTestApi(api, owner.workspace.rootKey);
    const { keyId } = await newKey({}, plainApi);
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${plainApi}.read_key`]);
    expect((await getKey({ keyId, decrypt: true }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  itAnswersAMissingKeyNotFound(api, owner, 'keys.getKey', 'api.*.read_key');

  it('for a deleted key', async () => {
    const { keyId } = await newKey();
    expect((await api.post('keys.deleteKey', { keyId }, owner.workspace.rootKey)).status).toBe(200);
    expect((await getKey({ keyId })).status).toBe(404);
  });

  it('for a key of a deleted API', async () => {
    const doomed = await createTestApi(api, owner.workspace.rootKey);
    const { keyId } = await newKey({}, doomed);
    await rows(api.em(), sql`update apis set deleted_at = now() where id = ${doomed}`);
    expect((await getKey({ keyId })).status).toBe(404);
  });
});

describe('412', () => {
  itDecryptsOnlyWhereItCan(api, () => owner.workspace, decryptingRead);
});

describe('cross-workspace isolation', () => {
  itHidesKeysFromOtherWorkspaces(api, () => owner.workspace, decryptingRead);
});
