import { createHash } from 'node:crypto';
import { Unkey } from '@unkey/api';
import {
  APIError,
  BadRequestErrorResponse,
  ForbiddenErrorResponse,
  NotFoundErrorResponse,
  UnauthorizedErrorResponse,
} from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.keys.*` of @unkey/api against a Keyplane server: every method, its answer as the SDK parses
// it, and the SDK's typed error for each status Keyplane answers.

const keyplane = useKeyplane();
let unkey: Unkey;
let apiId: string;

beforeAll(async () => {
  unkey = keyplane.unkey;
  apiId = (await unkey.apis.createApi({ name: 'sdk-keys' })).data.apiId;
});

async function createKey(fields: Partial<Parameters<Unkey['keys']['createKey']>[0]> = {}) {
  return (await unkey.keys.createKey({ apiId, ...fields })).data;
}

describe('200', () => {
  it('createKey returns the key once; getKey returns every field the SDK knows', async () => {
    const created = await createKey({
      prefix: 'sdk',
      name: 'full key',
      externalId: 'customer_1',
      meta: { plan: 'pro' },
      roles: [],
      permissions: ['documents.read'],
      expires: Date.now() + 3_600_000,
      credits: { remaining: 10, refill: { interval: 'monthly', amount: 10, refillDay: 1 } },
      ratelimits: [{ name: 'requests', limit: 5, duration: 60_000, autoApply: true }],
    });
    expect(created.key).toMatch(/^sdk_/);

    const { data } = await unkey.keys.getKey({ keyId: created.keyId });
    expect(data).toMatchObject({
      keyId: created.keyId,
      start: created.key.slice(0, 8),
      enabled: true,
      name: 'full key',
      meta: { plan: 'pro' },
      permissions: ['documents.read'],
      credits: { remaining: 10, refill: { interval: 'monthly', amount: 10, refillDay: 1 } },
      identity: { externalId: 'customer_1' },
      ratelimits: [{ name: 'requests', limit: 5, duration: 60_000, autoApply: true }],
    });
    expect(data.createdAt).toEqual(expect.any(Number));
    expect(data.expires).toEqual(expect.any(Number));
  });

  it('verifyKey answers a valid key with its limits and credits, and an unknown one with NOT_FOUND', async () => {
    const created = await createKey({
      credits: { remaining: 3 },
      ratelimits: [{ name: 'requests', limit: 2, duration: 60_000, autoApply: true }],
      permissions: ['documents.read'],
    });
    const { data } = await unkey.keys.verifyKey({ key: created.key, permissions: 'documents.read', tags: ['a=b'] });
    expect(data).toMatchObject({ valid: true, code: 'VALID', keyId: created.keyId, credits: 2, enabled: true });
    expect(data.ratelimits).toEqual([
      expect.objectContaining({ name: 'requests', limit: 2, remaining: 1, exceeded: false, autoApply: true }),
    ]);

    const denied = await unkey.keys.verifyKey({ key: created.key, permissions: 'documents.write' });
    expect(denied.data).toMatchObject({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });

    const unknown = await unkey.keys.verifyKey({ key: 'sdk_doesnotexist' });
    expect(unknown.data).toMatchObject({ valid: false, code: 'NOT_FOUND' });
  });

  it('verifyKey with credits and named limits reports USAGE_EXCEEDED and RATE_LIMITED', async () => {
    const created = await createKey({
      credits: { remaining: 1 },
      ratelimits: [{ name: 'burst', limit: 1, duration: 60_000 }],
    });
    const spent = await unkey.keys.verifyKey({ key: created.key, credits: { cost: 1 } });
    expect(spent.data).toMatchObject({ valid: true, credits: 0 });
    const empty = await unkey.keys.verifyKey({ key: created.key });
    expect(empty.data).toMatchObject({ valid: false, code: 'USAGE_EXCEEDED' });

    const limited = await createKey({ ratelimits: [{ name: 'burst', limit: 1, duration: 60_000 }] });
    await unkey.keys.verifyKey({ key: limited.key, ratelimits: [{ name: 'burst' }] });
    const refused = await unkey.keys.verifyKey({ key: limited.key, ratelimits: [{ name: 'burst' }] });
    expect(refused.data).toMatchObject({ valid: false, code: 'RATE_LIMITED' });
    expect(refused.data.ratelimits).toEqual([expect.objectContaining({ name: 'burst', exceeded: true })]);
  });

  it('whoami finds a key by its secret', async () => {
    const created = await createKey({ name: 'mine' });
    const { data } = await unkey.keys.whoami({ key: created.key });
    expect(data).toMatchObject({ keyId: created.keyId, name: 'mine', enabled: true });
  });

  it('updateKey changes fields and clears them with null', async () => {
    const created = await createKey({ name: 'before', meta: { a: 1 } });
    const updated = await unkey.keys.updateKey({
      keyId: created.keyId,
      name: 'after',
      meta: null,
      enabled: false,
      credits: { remaining: 5, refill: { interval: 'daily', amount: 5 } },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
    });
    expect(updated.data).toEqual({});
    const { data } = await unkey.keys.getKey({ keyId: created.keyId });
    expect(data).toMatchObject({ name: 'after', enabled: false, credits: { remaining: 5 } });
    expect(data.meta).toBeUndefined();
    expect(data.credits?.refill).toMatchObject({ interval: 'daily', amount: 5 });
  });

  it('updateCredits sets, increments and decrements, answering the balance', async () => {
    const created = await createKey({ credits: { remaining: 10 } });
    const set = await unkey.keys.updateCredits({ keyId: created.keyId, operation: 'set', value: 20 });
    expect(set.data).toMatchObject({ remaining: 20 });
    const up = await unkey.keys.updateCredits({ keyId: created.keyId, operation: 'increment', value: 5 });
    expect(up.data).toMatchObject({ remaining: 25 });
    const down = await unkey.keys.updateCredits({ keyId: created.keyId, operation: 'decrement', value: 30 });
    expect(down.data).toMatchObject({ remaining: 0 });
    const unlimited = await unkey.keys.updateCredits({ keyId: created.keyId, operation: 'set', value: null });
    expect(unlimited.data.remaining).toBeNull();
  });

  it('add/remove/setPermissions answer the key’s direct permissions', async () => {
    const created = await createKey();
    const added = await unkey.keys.addPermissions({ keyId: created.keyId, permissions: ['files.read', 'files.write'] });
    expect(added.data.map((permission) => permission.slug).sort()).toEqual(['files.read', 'files.write']);
    expect(added.data[0]).toEqual(expect.objectContaining({ id: expect.any(String), name: expect.any(String) }));

    const removed = await unkey.keys.removePermissions({ keyId: created.keyId, permissions: ['files.write'] });
    expect(removed.data.map((permission) => permission.slug)).toEqual(['files.read']);

    const set = await unkey.keys.setPermissions({ keyId: created.keyId, permissions: ['files.delete'] });
    expect(set.data.map((permission) => permission.slug)).toEqual(['files.delete']);
  });

  it('add/remove/setRoles answer the key’s roles with their permissions', async () => {
    await unkey.permissions.createRole({ name: 'sdk.reader' });
    await unkey.permissions.createRole({ name: 'sdk.writer' });
    const created = await createKey();
    const added = await unkey.keys.addRoles({ keyId: created.keyId, roles: ['sdk.reader', 'sdk.writer'] });
    expect(added.data.map((role) => role.name).sort()).toEqual(['sdk.reader', 'sdk.writer']);

    const removed = await unkey.keys.removeRoles({ keyId: created.keyId, roles: ['sdk.writer'] });
    expect(removed.data.map((role) => role.name)).toEqual(['sdk.reader']);

    const set = await unkey.keys.setRoles({ keyId: created.keyId, roles: ['sdk.writer'] });
    expect(set.data.map((role) => role.name)).toEqual(['sdk.writer']);
  });

  it('rerollKey issues a new key; deleteKey makes it NOT_FOUND', async () => {
    const created = await createKey({ name: 'rolled' });
    const rolled = await unkey.keys.rerollKey({ keyId: created.keyId, expiration: 0 });
    expect(rolled.data.keyId).not.toBe(created.keyId);
    expect((await unkey.keys.verifyKey({ key: rolled.data.key })).data.valid).toBe(true);

    expect((await unkey.keys.deleteKey({ keyId: rolled.data.keyId })).data).toEqual({});
    expect((await unkey.keys.verifyKey({ key: rolled.data.key })).data.code).toBe('NOT_FOUND');
  });

  it('migrateKeys imports a SHA-256 hash, and the original key verifies', async () => {
    const migrationId = await keyplane.createKeyMigration();
    const original = 'legacy_sdk_compat_key_1';
    const hash = createHash('sha256').update(original).digest('hex');
    const { data } = await unkey.keys.migrateKeys({ migrationId, apiId, keys: [{ hash, name: 'imported' }] });
    expect(data.failed).toEqual([]);
    expect(data.migrated).toEqual([{ hash, keyId: expect.any(String) }]);
    expect((await unkey.keys.verifyKey({ key: original })).data).toMatchObject({ valid: true, name: 'imported' });
  });

  it('createKey with recoverable stores the plaintext, which getKey decrypts', async () => {
    const updated = await keyplane.post('/v2/apis.updateApi', { apiId, encryption: { enabled: true } });
    expect(updated.status).toBe(200);
    const created = await createKey({ recoverable: true });
    const { data } = await unkey.keys.getKey({ keyId: created.keyId, decrypt: true });
    expect(data.plaintext).toBe(created.key);
  });
});

describe('400', () => {
  it('a field out of bounds is a BadRequestErrorResponse naming the field', async () => {
    const error = await rejection(unkey.keys.createKey({ apiId, byteLength: 2 }), BadRequestErrorResponse, 400);
    expect(problemType(error)).toBe('service/application/invalid_input');
    expect(error.error.errors).toEqual([expect.objectContaining({ location: 'body.byteLength' })]);
  });

  it('a permissions query that does not parse is a BadRequestErrorResponse of its own type', async () => {
    const created = await createKey();
    const error = await rejection(
      unkey.keys.verifyKey({ key: created.key, permissions: 'a AND (' }),
      BadRequestErrorResponse,
      400,
    );
    expect(problemType(error)).toBe('user/bad_request/permissions_query_syntax_error');
  });

  it('increment without a value is a BadRequestErrorResponse', async () => {
    const created = await createKey({ credits: { remaining: 1 } });
    await rejection(
      unkey.keys.updateCredits({ keyId: created.keyId, operation: 'increment' }),
      BadRequestErrorResponse,
      400,
    );
  });
});

describe('401', () => {
  it('an unknown root key is an UnauthorizedErrorResponse', async () => {
    const stranger = new Unkey({ serverURL: keyplane.url, rootKey: 'kproot_unknown' });
    const error = await rejection(stranger.keys.getKey({ keyId: 'key_123' }), UnauthorizedErrorResponse, 401);
    expect(problemType(error)).toBe('service/authentication/unauthorized');
  });
});

describe('403', () => {
  let reader: Unkey;
  beforeAll(async () => {
    reader = await keyplane.unkeyWith(['api.*.read_key']);
  });

  it('a root key without the permission is a ForbiddenErrorResponse naming it', async () => {
    const error = await rejection(reader.keys.createKey({ apiId }), ForbiddenErrorResponse, 403);
    expect(error.error.detail).toContain(`api.${apiId}.create_key`);
  });

  it('verifyKey without any verify_key grant is a ForbiddenErrorResponse', async () => {
    const created = await createKey();
    await rejection(reader.keys.verifyKey({ key: created.key }), ForbiddenErrorResponse, 403);
  });

  it('updateKey, deleteKey and whoami are refused alike', async () => {
    const created = await createKey();
    await rejection(reader.keys.updateKey({ keyId: created.keyId, name: 'x' }), ForbiddenErrorResponse, 403);
    await rejection(reader.keys.deleteKey({ keyId: created.keyId }), ForbiddenErrorResponse, 403);
    const other = await keyplane.unkeyWith(['api.*.create_key']);
    await rejection(other.keys.whoami({ key: created.key }), ForbiddenErrorResponse, 403);
  });
});

describe('404', () => {
  it('a key that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(unkey.keys.getKey({ keyId: 'key_doesnotexist' }), NotFoundErrorResponse, 404);
    expect(problemType(error)).toBe('service/data/key_not_found');
    await rejection(unkey.keys.addRoles({ keyId: 'key_doesnotexist', roles: ['r'] }), NotFoundErrorResponse, 404);
    await rejection(unkey.keys.whoami({ key: 'sdk_doesnotexist' }), NotFoundErrorResponse, 404);
  });

  it('an API that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(unkey.keys.createKey({ apiId: 'api_doesnotexist' }), NotFoundErrorResponse, 404);
    expect(problemType(error)).toBe('service/data/api_not_found');
  });

  it('a migration that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(
      unkey.keys.migrateKeys({ migrationId: 'mig_doesnotexist', apiId, keys: [{ hash: 'abc' }] }),
      NotFoundErrorResponse,
      404,
    );
    expect(problemType(error)).toBe('service/data/migration_not_found');
  });
});

describe('412', () => {
  it('the SDK maps no 412 for keys: a precondition failure reaches the caller as its APIError', async () => {
    const other = (await unkey.apis.createApi({ name: 'sdk-no-encryption' })).data.apiId;
    const error = await rejection(unkey.keys.createKey({ apiId: other, recoverable: true }), APIError, 412);
    expect(JSON.parse(error.body)).toMatchObject({ error: { status: 412, title: 'Precondition Failed' } });
  });

  it('verifyKey naming a limit the key does not have answers 412, also as APIError', async () => {
    const created = await createKey();
    const error = await rejection(
      unkey.keys.verifyKey({ key: created.key, ratelimits: [{ name: 'nope' }] }),
      APIError,
      412,
    );
    expect(JSON.parse(error.body)).toMatchObject({ error: { type: expect.stringContaining('precondition_failed') } });
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(limited.keys.verifyKey({ key: 'sdk_anything' }));
  });
});
