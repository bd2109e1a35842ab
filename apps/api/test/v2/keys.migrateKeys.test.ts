import { createHash, randomBytes } from 'node:crypto';
import { hashKey } from '@keyplane/core';
import { createKeyMigration, rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectLimitExceeded, expectMissingPermissions, expectProblem, invalidInputCheck } from '../assertions.ts';
import { countRows, createRole, keyPermissionSlugs, keyRatelimits, keyRoleNames, storedKey } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);
let migrationId: string;

beforeAll(async () => {
  migrationId = await createKeyMigration(api.em(), owner.workspace.workspaceId);
});

/** A key as the customer's old system issued it, with its SHA-256 in both encodings. */
function legacyKey() {
  const plaintext = `legacy_${randomBytes(18).toString('base64url')}`;
  const digest = createHash('sha256').update(plaintext);
  const hex = createHash('sha256').update(plaintext).digest('hex');
  return { plaintext, hex, base64: digest.digest('base64') };
}
const migrateKeys = (body: InputOf<'keys.migrateKeys'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.migrateKeys', body, rootKey);
const migrate = (keys: InputOf<'keys.migrateKeys'>['keys'], rootKey = owner.workspace.rootKey) =>
  migrateKeys({ migrationId, apiId: owner.apiId, keys }, rootKey);
const verify = async (key: string, extra: Omit<InputOf<'keys.verifyKey'>, 'key'> = {}) => {
  const reply = await api.call('keys.verifyKey', { key, ...extra }, owner.workspace.rootKey);
  expect(reply.status).toBe(200);
  return reply.body.data;
};

describe('200', () => {
  it('migrates a hex hash: the original plaintext verifies VALID', async () => {
    const legacy = legacyKey();
    const reply = await migrate([{ hash: legacy.hex }]);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      migrated: [{ hash: legacy.hex, keyId: expect.stringMatching(/^key_/) }],
      failed: [],
    });
    const keyId = reply.body.data.migrated[0]?.keyId ?? '';
    expect(await verify(legacy.plaintext)).toMatchObject({ valid: true, code: 'VALID', keyId });
  });

  it('migrates a base64 hash, and an upper-case hex one', async () => {
    const base64 = legacyKey();
    const upper = legacyKey();
    const reply = await migrate([{ hash: base64.base64 }, { hash: upper.hex.toUpperCase() }]);
    expect(reply.body.data.migrated.map((m) => m.hash)).toEqual([base64.base64, upper.hex.toUpperCase()]);
    expect((await verify(base64.plaintext)).code).toBe('VALID');
    expect((await verify(upper.plaintext)).code).toBe('VALID');
  });

  it('stores the hash in our format, with an empty start and the pending migration', async () => {
    const legacy = legacyKey();
    const reply = await migrate([{ hash: legacy.hex }]);
    const keyId = reply.body.data.migrated[0]?.keyId ?? '';
    expect(await storedKey(api.em(), keyId)).toMatchObject({
      hash: hashKey(legacy.plaintext),
      start: '',
      workspace_id: owner.workspace.workspaceId,
      api_id: owner.apiId,
      enabled: true,
    });
    const [row] = await rows(
      api.em(),
      sql<{ pending: string }>`select pending_migration_id as pending from keys where id = ${keyId}`,
    );
    expect(row?.pending).toBe(migrationId);
  });

  it.each([
    ['of 3 characters', 'abc'],
    ['from bcrypt', '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy'],
    ['of 63 hex characters', 'c'.repeat(63)],
    ['of 128 characters', `h${'x'.repeat(127)}`],
  ])('stores any other hash %s as given', async (_, hash) => {
    const reply = await migrate([{ hash }]);
    expect(reply.body.data).toEqual({ migrated: [{ hash, keyId: expect.stringMatching(/^key_/) }], failed: [] });
    expect((await storedKey(api.em(), reply.body.data.migrated[0]?.keyId ?? ''))?.hash).toBe(hash);
  });

  it('takes an externalId in any text, unlike createKey', async () => {
    const externalId = 'user@example.com / team 7';
    const reply = await migrate([{ hash: legacyKey().hex, externalId }]);
    expect(reply.status).toBe(200);
    const keyId = reply.body.data.migrated[0]?.keyId ?? '';
    const [identity] = await rows(
      api.em(),
      sql<{ externalId: string }>`
        select i.external_id as "externalId" from identities i join keys k on k.identity_id = i.id where k.id = ${keyId}`,
    );
    expect(identity?.externalId).toBe(externalId);
  });

  it('stores every field, creating roles, permissions and identities that do not exist', async () => {
    await createRole(api.em(), owner.workspace.workspaceId, 'existing-role');
    const legacy = legacyKey();
    const rolesBefore = await rows(api.em(), sql<{ count: number }>`select count(*)::int as count from roles`);
    const reply = await migrate([
      {
        hash: legacy.hex,
        name: 'imported',
        externalId: 'imported_user',
        meta: { source: 'legacy' },
        roles: ['existing-role', 'new-role'],
        permissions: ['legacy.read', 'legacy.write'],
        expires: 4102444800000,
        credits: { remaining: 7, refill: { interval: 'monthly', amount: 7, refillDay: 1 } },
        ratelimits: [{ name: 'per-second', limit: 10, duration: 1000, autoApply: true }],
      },
    ]);
    expect(reply.status).toBe(200);
    const keyId = reply.body.data.migrated[0]?.keyId ?? '';
    expect(await storedKey(api.em(), keyId)).toMatchObject({
      name: 'imported',
      meta: { source: 'legacy' },
      expires_ms: 4102444800000,
      credits_remaining: '7',
      refill_interval: 'monthly',
      refill_amount: '7',
      refill_day: 1,
    });
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['existing-role', 'new-role']);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['legacy.read', 'legacy.write']);
    expect(await keyRatelimits(api.em(), keyId)).toEqual([
      { name: 'per-second', limit: 10, duration_ms: '1000', auto_apply: true },
    ]);
    const rolesAfter = await rows(api.em(), sql<{ count: number }>`select count(*)::int as count from roles`);
    expect(rolesAfter[0]?.count).toBe((rolesBefore[0]?.count ?? 0) + 1);

    const verified = await verify(legacy.plaintext, { permissions: 'legacy.read and legacy.write' });
    expect(verified).toMatchObject({
      code: 'VALID',
      name: 'imported',
      meta: { source: 'legacy' },
      credits: 6,
      roles: ['existing-role', 'new-role'],
      identity: { externalId: 'imported_user' },
    });
  });

  it('links several keys to one identity and shares created roles and permissions', async () => {
    const [a, b] = [legacyKey(), legacyKey()];
    const identitiesBefore = await countRows(api.em(), 'identities');
    const permissionsBefore = await countRows(api.em(), 'permissions');
    const reply = await migrate([
      { hash: a.hex, externalId: 'team_1', roles: ['team-role'], permissions: ['team.perm'] },
      { hash: b.hex, externalId: 'team_1', roles: ['team-role'], permissions: ['team.perm', 'team.perm'] },
    ]);
    expect(reply.body.data.migrated).toHaveLength(2);
    const [first, second] = await Promise.all(
      reply.body.data.migrated.map((migrated) => storedKey(api.em(), migrated.keyId)),
    );
    expect(first?.identity_id).toMatch(/^id_/);
    expect(second?.identity_id).toBe(first?.identity_id);
    expect(await countRows(api.em(), 'identities')).toBe(identitiesBefore + 1);
    expect(await countRows(api.em(), 'permissions')).toBe(permissionsBefore + 1);
  });

  it('keeps enabled: false and an expiry in the past', async () => {
    const [disabled, expired] = [legacyKey(), legacyKey()];
    await migrate([
      { hash: disabled.hex, enabled: false },
      { hash: expired.hex, expires: Date.now() - 60_000 },
    ]);
    expect((await verify(disabled.plaintext)).code).toBe('DISABLED');
    expect((await verify(expired.plaintext)).code).toBe('EXPIRED');
  });

  it('reports hashes already taken as failed and migrates the rest (partial success)', async () => {
    const created = await api.call('keys.createKey', { apiId: owner.apiId }, owner.workspace.rootKey);
    const takenHash = createHash('sha256').update(created.body.data.key).digest('hex');
    const fresh = legacyKey();
    const before = await countRows(api.em(), 'keys');
    const reply = await migrate([{ hash: takenHash }, { hash: fresh.hex }]);
    expect(reply.status).toBe(200);
    expect(reply.body.data.failed).toEqual([takenHash]);
    expect(reply.body.data.migrated.map((m) => m.hash)).toEqual([fresh.hex]);
    expect(await countRows(api.em(), 'keys')).toBe(before + 1);
  });

  it('fails a repeat of the same hash, in either encoding, within one request and across requests', async () => {
    const legacy = legacyKey();
    const reply = await migrate([{ hash: legacy.hex }, { hash: legacy.base64 }, { hash: legacy.hex }]);
    expect(reply.body.data.migrated.map((m) => m.hash)).toEqual([legacy.hex]);
    expect(reply.body.data.failed).toEqual([legacy.base64, legacy.hex]);
    const again = await migrate([{ hash: legacy.base64 }]);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ migrated: [], failed: [legacy.base64] });
  });

  it('does not create roles or permissions for keys that all failed', async () => {
    const legacy = legacyKey();
    await migrate([{ hash: legacy.hex }]);
    const before = await countRows(api.em(), 'permissions');
    const reply = await migrate([{ hash: legacy.hex, permissions: ['never.made'] }]);
    expect(reply.body.data.failed).toEqual([legacy.hex]);
    expect(await countRows(api.em(), 'permissions')).toBe(before);
  });

  it('a key verified as NOT_FOUND before (the cache is warm) verifies VALID right after migration', async () => {
    const legacy = legacyKey();
    expect((await verify(legacy.plaintext)).code).toBe('NOT_FOUND');
    expect((await verify(legacy.plaintext)).code).toBe('NOT_FOUND');
    await migrate([{ hash: legacy.base64 }]);
    expect((await verify(legacy.plaintext)).code).toBe('VALID');
  });

  it('migrates the most keys one call takes, 1000, in one transaction', async () => {
    const bulkMigration = await createKeyMigration(api.em(), owner.workspace.workspaceId);
    const keys = Array.from({ length: 1000 }, () => legacyKey());
    const items = keys.map((key, i) => ({
      hash: key.base64,
      externalId: `bulk_${i % 500}`,
      permissions: ['bulk.read'],
      credits: { remaining: i },
    }));
    // The server's default body limit: the test app's 64 KiB is too small for 1000 items.
    const reply = await callOn(
      api,
      { maxBodyBytes: 1024 * 1024 },
      'keys.migrateKeys',
      { migrationId: bulkMigration, apiId: owner.apiId, keys: items },
      owner.workspace.rootKey,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data.migrated).toHaveLength(1000);
    // now() is the transaction's start: one value means one transaction.
    const [stamps] = await rows(
      api.em(),
      sql<{ keys: number; times: number }>`
        select count(*)::int as keys, count(distinct created_at)::int as times from keys
        where pending_migration_id = ${bulkMigration}`,
    );
    expect(stamps).toEqual({ keys: 1000, times: 1 });
    expect(await verify(keys[999]?.plaintext ?? '', { permissions: 'bulk.read' })).toMatchObject({
      code: 'VALID',
      credits: 998,
      identity: { externalId: 'bulk_499' },
    });
  });

  it('takes role names and permission slugs of 128 characters, as permissions.* do', async () => {
    const [role, slug] = ['m'.repeat(128), 'n'.repeat(128)];
    const reply = await migrate([{ hash: legacyKey().hex, roles: [role], permissions: [slug] }]);
    expect(reply.status).toBe(200);
    const keyId = reply.body.data.migrated[0]?.keyId ?? '';
    expect(await keyRoleNames(api.em(), keyId)).toEqual([role]);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual([slug]);
  });

  it('with exactly api.<apiId>.create_key', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.create_key`]);
    const reply = await migrate(
      [{ hash: legacyKey().hex, roles: ['scoped-role'], permissions: ['scoped.p'] }],
      rootKey,
    );
    expect(reply.status).toBe(200);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'keys.migrateKeys', () => owner.workspace.rootKey);
  const hash = 'a'.repeat(64);

  it.each([
    [{ apiId: 'api_x', keys: [{ hash: 'a'.repeat(64) }] }, 'body.migrationId'],
    [{ migrationId: 'mi', apiId: 'api_x', keys: [{ hash: 'a'.repeat(64) }] }, 'body.migrationId'],
    [{ migrationId: 'mig\u0000', apiId: 'api_x', keys: [{ hash: 'a'.repeat(64) }] }, 'body.migrationId'],
    [{ migrationId: 'mig_x', keys: [{ hash: 'a'.repeat(64) }] }, 'body.apiId'],
    [{ migrationId: 'mig_x', apiId: 'api-x', keys: [{ hash: 'a'.repeat(64) }] }, 'body.apiId'],
    [{ migrationId: 'mig_x', apiId: 'api_x' }, 'body.keys'],
    [{ migrationId: 'mig_x', apiId: 'api_x', keys: [] }, 'body.keys'],
    [{ migrationId: 'mig_x', apiId: 'api_x', keys: [{}] }, 'body.keys[0].hash'],
    [{ migrationId: 'mig_x', apiId: 'api_x', keys: [{ hash: 'a'.repeat(64) }], extra: 1 }, 'body.extra'],
  ])('rejects %j', async (body, location) => {
    await expectInvalid(body, location);
  });

  it.each([
    ['shorter than 3 characters', 'ab'],
    ['holding U+0000', 'has\u0000nul'],
    ['a number', 12],
  ])('rejects a hash that is %s', async (_, value) => {
    await expectInvalid({ migrationId, apiId: owner.apiId, keys: [{ hash }, { hash: value }] }, 'body.keys[1].hash');
  });

  it('rejects more than 1000 keys in one call, saying so, and imports none of them', async () => {
    const before = await countRows(api.em(), 'keys');
    const reply = await callOn(
      api,
      { maxBodyBytes: 1024 * 1024 },
      'keys.migrateKeys',
      { migrationId, apiId: owner.apiId, keys: Array.from({ length: 1001 }, () => ({ hash: legacyKey().hex })) },
      owner.workspace.rootKey,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toContainEqual({
      location: 'body.keys',
      message: 'must hold at most 1000 keys; import more in several calls',
    });
    expect(await countRows(api.em(), 'keys')).toBe(before);
  });

  it('rejects a hash longer than the 128 characters stored, saying so', async () => {
    const reply = await migrateKeys({ migrationId, apiId: owner.apiId, keys: [{ hash: 'h'.repeat(129) }] });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toContainEqual(
      expect.objectContaining({
        location: 'body.keys[0].hash',
        message: 'must be at most 128 characters, the longest hash stored',
      }),
    );
  });

  it.each([
    ['name', ''],
    ['externalId', ''],
    ['externalId', 'x'.repeat(256)],
    ['meta', [1]],
    ['roles', ['']],
    ['roles', ['r'.repeat(129)]],
    ['permissions', ['p'.repeat(129)]],
    ['permissions', 'p'],
    ['expires', -1],
    ['enabled', 'no'],
    ['credits', null],
    ['credits', { remaining: 2 ** 53 }],
    ['credits', { remaining: 1, refill: { interval: 'daily', amount: 2 ** 53 } }],
    ['ratelimits', [{ name: 'ab', limit: 1, duration: 1000 }]],
    ['ratelimits', [{ name: 'abc', limit: 2 ** 31, duration: 1000 }]],
    ['recoverable', true],
  ])('rejects a key with %s = %j', async (field, value) => {
    const reply = await migrateKeys({ migrationId, apiId: owner.apiId, keys: [{ hash, [field]: value }] });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors?.some((e) => e.location.startsWith(`body.keys[0].${field}`))).toBe(true);
  });

  it('writes nothing', async () => {
    const before = await countRows(api.em(), 'keys');
    await migrateKeys({ migrationId, apiId: owner.apiId, keys: [{ hash: legacyKey().hex }, { hash: 'ba' }] });
    expect(await countRows(api.em(), 'keys')).toBe(before);
  });
});

describe('403', () => {
  it('without create_key, naming it, and migrates nothing', async () => {
    const legacy = legacyKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key', 'api.*.verify_key']);
    const reply = await migrate([{ hash: legacy.hex }], rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.create_key`);
    expect((await verify(legacy.plaintext)).code).toBe('NOT_FOUND');
  });

  it('with create_key for another API only', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.create_key']);
    expect((await migrate([{ hash: legacyKey().hex }], rootKey)).status).toBe(403);
  });

  it('before looking the API up', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.create_key']);
    const reply = await migrateKeys({ migrationId, apiId: 'api_missing', keys: [{ hash: legacyKey().hex }] }, rootKey);
    expect(reply.status).toBe(403);
  });
});

describe('404', () => {
  it('for an API that does not exist (before the migration is looked up)', async () => {
    expectProblem(
      await migrateKeys({
        migrationId: 'mig_missing',
        apiId: 'api_missing',
        keys: [{ hash: 'a'.repeat(64) }],
      }),
      404,
      'service/data/api_not_found',
    );
  });

  it('for a migration that does not exist, writing nothing', async () => {
    const legacy = legacyKey();
    expectProblem(
      await migrateKeys({
        migrationId: 'mig_missing',
        apiId: owner.apiId,
        keys: [{ hash: legacy.hex, roles: ['x-role'] }],
      }),
      404,
      'service/data/migration_not_found',
    );
    expect((await verify(legacy.plaintext)).code).toBe('NOT_FOUND');
  });

  it('for a deleted API', async () => {
    const deleted = await createTestApi(api, owner.workspace.rootKey);
    await rows(api.em(), sql`update apis set deleted_at = now() where id = ${deleted}`);
    expectProblem(
      await migrateKeys({ migrationId, apiId: deleted, keys: [{ hash: legacyKey().hex }] }),
      404,
      'service/data/api_not_found',
    );
  });
});

describe('412', () => {
  it("to create roles past the workspace's limit (LIMIT_ROLES), migrating nothing", async () => {
    const bounded = await api.workspace();
    const boundedApi = await createTestApi(api, bounded.rootKey);
    const boundedMigration = await createKeyMigration(api.em(), bounded.workspaceId);
    const legacy = legacyKey();
    const refused = await callOn(
      api,
      { limits: { roles: 1 } },
      'keys.migrateKeys',
      { migrationId: boundedMigration, apiId: boundedApi, keys: [{ hash: legacy.hex, roles: ['first', 'second'] }] },
      bounded.rootKey,
    );
    expectLimitExceeded(refused, 'A workspace may hold at most 1 roles');
    expect((await api.call('apis.listKeys', { apiId: boundedApi }, bounded.rootKey)).body.data).toEqual([]);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot migrate into another workspace's API (404)", async () => {
    const intruder = await api.workspace();
    const intruderMigration = await createKeyMigration(api.em(), intruder.workspaceId);
    expectProblem(
      await migrateKeys(
        { migrationId: intruderMigration, apiId: owner.apiId, keys: [{ hash: legacyKey().hex }] },
        intruder.rootKey,
      ),
      404,
      'service/data/api_not_found',
    );
  });

  it("cannot use another workspace's migration (404)", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    expectProblem(
      await migrateKeys({ migrationId, apiId: otherApi, keys: [{ hash: legacyKey().hex }] }, other.rootKey),
      404,
      'service/data/migration_not_found',
    );
  });

  it("creates its own roles, permissions and identities rather than using another workspace's", async () => {
    await createRole(api.em(), owner.workspace.workspaceId, 'cross-role');
    const mine = legacyKey();
    const myKeyId = (await migrate([{ hash: mine.hex, externalId: 'cross_user', permissions: ['cross.p'] }])).body.data
      .migrated[0]?.keyId;
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const otherMigration = await createKeyMigration(api.em(), other.workspaceId);
    const theirs = legacyKey();
    const reply = await migrateKeys(
      {
        migrationId: otherMigration,
        apiId: otherApi,
        keys: [{ hash: theirs.hex, externalId: 'cross_user', roles: ['cross-role'], permissions: ['cross.p'] }],
      },
      other.rootKey,
    );
    const theirKeyId = reply.body.data.migrated[0]?.keyId ?? '';
    const [owners] = await rows(
      api.em(),
      sql<{ identity: string; role: string; permission: string }>`
        select (select i.workspace_id from identities i join keys k on k.identity_id = i.id where k.id = ${theirKeyId}) as identity,
               (select r.workspace_id from roles r join keys_roles kr on kr.role_id = r.id where kr.key_id = ${theirKeyId}) as role,
               (select p.workspace_id from permissions p join keys_permissions kp on kp.permission_id = p.id
                  where kp.key_id = ${theirKeyId}) as permission`,
    );
    expect(owners).toEqual({ identity: other.workspaceId, role: other.workspaceId, permission: other.workspaceId });
    expect((await storedKey(api.em(), theirKeyId))?.identity_id).not.toBe(
      (await storedKey(api.em(), myKeyId ?? ''))?.identity_id,
    );
  });

  it("fails a hash that another workspace's key has, leaving that key alone", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = await api.call('keys.createKey', { apiId: otherApi }, other.rootKey);
    const theirHash = hashKey(theirs.body.data.key);
    const reply = await migrate([{ hash: theirHash, name: 'hijack' }]);
    expect(reply.body.data).toEqual({ migrated: [], failed: [theirHash] });
    expect(await storedKey(api.em(), theirs.body.data.keyId)).toMatchObject({
      workspace_id: other.workspaceId,
      name: null,
    });
    // The migrated workspace's root key still cannot see that key.
    expect((await verify(theirs.body.data.key)).code).toBe('NOT_FOUND');
  });
});
