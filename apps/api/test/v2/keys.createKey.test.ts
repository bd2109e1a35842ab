import { decryptKeyMaterial, hashKey, loadDataKey } from '@keyplane/core';
import { vaultStore } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn, postOn } from '../appVariants.ts';
import {
  expectInvalidInput,
  expectLimitExceeded,
  expectMissingPermissions,
  expectProblem,
  itRejectsField,
} from '../assertions.ts';
import {
  countRows,
  createRole,
  everyStoredValue,
  keyPermissionSlugs,
  keyRatelimits,
  keyRoleNames,
  storedKey,
} from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, ERRORS_BASE_URL, JsonText, TEST_MASTER_KEY, useApi, withNestedMeta } from '../harness.ts';
import { INVALID_KEY_FIELDS, INVALID_RESOURCE_IDS, storedKeyFields } from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api, { vault: true, settings: { encryption: { enabled: true } } });

/** keys.createKey, in the file's API unless `input` names another. */
const createKey = (input: Partial<InputOf<'keys.createKey'>>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.createKey', { apiId: owner.apiId, ...input }, rootKey);

describe('200', () => {
  it('creates a usable key with the defaults and returns it once', async () => {
    const reply = await createKey({});
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ keyId: expect.stringMatching(/^key_[A-Za-z0-9]+$/), key: expect.any(String) });
    const stored = await storedKey(api.em(), reply.body.data.keyId);
    expect(stored).toMatchObject({
      api_id: owner.apiId,
      workspace_id: owner.workspace.workspaceId,
      hash: hashKey(reply.body.data.key),
      enabled: true,
      name: null,
      expires_ms: null,
      credits_remaining: null,
      identity_id: null,
      ciphertext: null,
    });
  });

  it('generates 16 random bytes by default, base58 without a prefix', async () => {
    const { key } = (await createKey({})).body.data;
    expect(key).toMatch(/^[1-9A-HJ-NP-Za-km-z]{21,22}$/);
  });

  it('puts the prefix before an underscore and keeps the start for listings', async () => {
    const { keyId, key } = (await createKey({ prefix: 'sk_live' })).body.data;
    expect(key).toMatch(/^sk_live_[1-9A-HJ-NP-Za-km-z]+$/);
    expect((await storedKey(api.em(), keyId))?.start).toBe(key.slice(0, 'sk_live_'.length + 4));
  });

  it.each([
    [16, 21, 22],
    [255, 340, 349],
  ])('byteLength %i gives a random part of %i-%i characters', async (byteLength, min, max) => {
    const { key } = (await createKey({ byteLength, prefix: 'p' })).body.data;
    const random = key.slice(2);
    expect(random.length).toBeGreaterThanOrEqual(min);
    expect(random.length).toBeLessThanOrEqual(max);
  });

  it('uses the API default prefix and byte length when the request has none', async () => {
    const withDefaults = await createTestApi(api, owner.workspace.rootKey, { defaultPrefix: 'dflt', defaultBytes: 64 });
    const { key } = (await api.call('keys.createKey', { apiId: withDefaults }, owner.workspace.rootKey)).body.data;
    expect(key.startsWith('dflt_')).toBe(true);
    expect(key.length).toBeGreaterThan('dflt_'.length + 80);
  });

  it('stores name, meta, expires and enabled', async () => {
    const fields = {
      name: 'Acme prod',
      meta: { plan: 'pro', nested: { seats: 3 }, list: [1, 2] },
      expires: 4102444800000,
    };
    const { keyId } = (await createKey({ ...fields, enabled: false })).body.data;
    expect(await storedKeyFields(api.em(), keyId)).toEqual({ ...fields, enabled: false });
  });

  it('accepts an expiry in the past (the key is expired at once)', async () => {
    const { keyId } = (await createKey({ expires: 0 })).body.data;
    expect((await storedKey(api.em(), keyId))?.expires_ms).toBe(0);
  });

  it('creates an identity for a new externalId and links later keys to the same one', async () => {
    const first = (await createKey({ externalId: 'user_123.a-b' })).body.data;
    const second = (await createKey({ externalId: 'user_123.a-b' })).body.data;
    const firstIdentity = (await storedKey(api.em(), first.keyId))?.identity_id;
    expect(firstIdentity).toMatch(/^id_/);
    expect((await storedKey(api.em(), second.keyId))?.identity_id).toBe(firstIdentity);
  });

  it('creates missing permissions and reuses existing ones', async () => {
    const first = (await createKey({ permissions: ['documents.read', 'documents.*'] })).body.data;
    const permissionsBefore = await countRows(api.em(), 'permissions');
    const second = (await createKey({ permissions: ['documents.read', 'documents.write'] })).body.data;
    expect(await keyPermissionSlugs(api.em(), first.keyId)).toEqual(['documents.*', 'documents.read']);
    expect(await keyPermissionSlugs(api.em(), second.keyId)).toEqual(['documents.read', 'documents.write']);
    expect(await countRows(api.em(), 'permissions')).toBe(permissionsBefore + 1);
  });

  it('attaches existing roles', async () => {
    await createRole(api.em(), owner.workspace.workspaceId, 'admin');
    await createRole(api.em(), owner.workspace.workspaceId, 'billing:read');
    const { keyId } = (await createKey({ roles: ['admin', 'billing:read'] })).body.data;
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['admin', 'billing:read']);
  });

  it('stores credits with a daily refill, in any letter case', async () => {
    const { keyId } = (await createKey({ credits: { remaining: 100, refill: { interval: 'DAILY', amount: 50 } } })).body
      .data;
    expect(await storedKey(api.em(), keyId)).toMatchObject({
      credits_remaining: '100',
      refill_interval: 'daily',
      refill_amount: '50',
      refill_day: null,
    });
  });

  it('stores a monthly refill day, also spelled refill_day', async () => {
    for (const refill of [
      { interval: 'monthly', amount: 10, refillDay: 31 },
      { interval: 'Monthly', amount: 10, refill_day: 31 },
    ]) {
      const { keyId } = (await createKey({ credits: { remaining: 5, refill } })).body.data;
      expect(await storedKey(api.em(), keyId)).toMatchObject({ refill_interval: 'monthly', refill_day: 31 });
    }
  });

  it('treats remaining 0 as limited and remaining null as unlimited', async () => {
    const zero = (await createKey({ credits: { remaining: 0 } })).body.data;
    const unlimited = (await createKey({ credits: { remaining: null } })).body.data;
    expect((await storedKey(api.em(), zero.keyId))?.credits_remaining).toBe('0');
    expect((await storedKey(api.em(), unlimited.keyId))?.credits_remaining).toBeNull();
  });

  it('stores rate limits, autoApply defaulting to false', async () => {
    const { keyId } = (
      await createKey({
        ratelimits: [
          { name: 'per-second', limit: 10, duration: 1000, autoApply: true },
          { name: 'per-day', limit: 10_000, duration: 86_400_000 },
        ],
      })
    ).body.data;
    expect(await keyRatelimits(api.em(), keyId)).toEqual([
      { name: 'per-day', limit: 10_000, duration_ms: '86400000', auto_apply: false },
      { name: 'per-second', limit: 10, duration_ms: '1000', auto_apply: true },
    ]);
  });

  it('stores a recoverable key encrypted under the workspace vault key', async () => {
    const { keyId, key } = (await createKey({ recoverable: true })).body.data;
    const stored = await storedKey(api.em(), keyId);
    expect(stored?.ciphertext).toEqual(expect.any(String));
    const dataKey = await loadDataKey(vaultStore(api.em()), owner.workspace.workspaceId, TEST_MASTER_KEY);
    if (!dataKey || !stored?.ciphertext) throw new Error('expected a data key and a ciphertext');
    expect(decryptKeyMaterial(dataKey, stored.ciphertext, keyId)).toBe(key);
  });

  it('accepts every field at its upper bound at once', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `bulk-role-${i}`);
    for (const name of names) await createRole(api.em(), owner.workspace.workspaceId, name);
    const reply = await createKey({
      prefix: 'p'.repeat(16),
      name: 'n'.repeat(255),
      byteLength: 255,
      externalId: 'e'.repeat(255),
      meta: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])),
      roles: names,
      permissions: Array.from({ length: 1000 }, (_, i) => `perm.${i}`.padEnd(i === 0 ? 100 : 0, 'x')),
      expires: 4102444800000,
      ratelimits: Array.from({ length: 50 }, (_, i) => ({ name: `limit-${i}`, limit: 1, duration: 1000 })),
    });
    expect(reply.status).toBe(200);
    expect(await keyRoleNames(api.em(), reply.body.data.keyId)).toHaveLength(100);
    expect(await keyPermissionSlugs(api.em(), reply.body.data.keyId)).toHaveLength(1000);
  });
});

describe('400', () => {
  const expectInvalid = async (body: unknown, location: string) => {
    expectInvalidInput(await api.post('keys.createKey', body, owner.workspace.rootKey), location);
  };
  const withApi = (body: Record<string, unknown>) => ({ apiId: owner.apiId, ...body });

  itRejectsField(expectInvalid, 'apiId', INVALID_RESOURCE_IDS);

  it.each([
    ...INVALID_KEY_FIELDS,
    ['prefix', ''],
    ['prefix', 'p'.repeat(17)],
    ['prefix', 'has-dash'],
    ['byteLength', 15],
    ['byteLength', 256],
    ['byteLength', 16.5],
    ['externalId', 'e'.repeat(256)],
    ['meta', [1]],
    ['meta', { note: 'lone \ud800 surrogate' }],
    ['name', 'lone \udc00 surrogate'],
    ['expires', 1.5],
    ['credits', null],
    ['credits', 5],
    ['recoverable', 1],
  ])('rejects %s = %j', async (field, value) => {
    await expectInvalid(withApi({ [field]: value }), `body.${field}`);
  });

  it('rejects a meta field named __proto__, which no object built from it could keep', async () => {
    await expectInvalid(
      new JsonText(`{"apiId":"${owner.apiId}","meta":{"__proto__":{"admin":true}}}`),
      'body.meta.__proto__',
    );
  });

  it.each([101, 5000])('rejects meta nested %i levels deep', async (levels) => {
    await expectInvalid(withNestedMeta({ apiId: owner.apiId }, levels), 'body.meta');
  });

  it.each([
    ['empty', ''],
    ['longer than 100 characters (docs/contract.md#creating-keys)', 'r'.repeat(101)],
    ['with a forbidden character', 'ro le'],
  ])('rejects a role name that is %s', async (_, role) => {
    await expectInvalid(withApi({ roles: [role] }), 'body.roles[0]');
  });

  it.each([
    ['empty', ''],
    ['longer than 100 characters (docs/contract.md#creating-keys)', 'p'.repeat(101)],
  ])('rejects a permission that is %s', async (_, permission) => {
    await expectInvalid(withApi({ permissions: [permission] }), 'body.permissions[0]');
  });

  it.each([
    [{ remaining: -1 }, 'body.credits.remaining'],
    [{ remaining: 1.5 }, 'body.credits.remaining'],
    [{ remaining: 2 ** 53 }, 'body.credits.remaining'],
    [{}, 'body.credits.remaining'],
    [{ remaining: null, refill: { interval: 'daily', amount: 1 } }, 'body.credits.remaining'],
    [{ remaining: 1, refill: { interval: 'weekly', amount: 1 } }, 'body.credits.refill.interval'],
    [{ remaining: 1, refill: { interval: 'daily', amount: 0 } }, 'body.credits.refill.amount'],
    [{ remaining: 1, refill: { interval: 'daily', amount: 2 ** 53 } }, 'body.credits.refill.amount'],
    [{ remaining: 1, refill: { interval: 'monthly', amount: 1 } }, 'body.credits.refill.refillDay'],
    [{ remaining: 1, refill: { interval: 'monthly', amount: 1, refillDay: 0 } }, 'body.credits.refill.refillDay'],
    [{ remaining: 1, refill: { interval: 'monthly', amount: 1, refillDay: 32 } }, 'body.credits.refill.refillDay'],
    [
      { remaining: 1, refill: { interval: 'monthly', amount: 1, refillDay: 2, refill_day: 3 } },
      'body.credits.refill.refill_day',
    ],
    [{ remaining: 1, extra: true }, 'body.credits.extra'],
  ])('rejects credits %j', async (credits, location) => {
    await expectInvalid(withApi({ credits }), location);
  });

  it.each([
    [{ name: 'ab', limit: 1, duration: 1000 }, 'body.ratelimits[0].name'],
    [{ name: 'has\u0000nul', limit: 1, duration: 1000 }, 'body.ratelimits[0].name'],
    [{ name: 'abc', limit: 0, duration: 1000 }, 'body.ratelimits[0].limit'],
    [{ name: 'abc', limit: 1, duration: 999 }, 'body.ratelimits[0].duration'],
    [{ name: 'abc', duration: 1000 }, 'body.ratelimits[0].limit'],
    [{ name: 'abc', limit: 1, duration: 1000, autoApply: 'yes' }, 'body.ratelimits[0].autoApply'],
  ])('rejects the rate limit %j', async (limit, location) => {
    await expectInvalid(withApi({ ratelimits: [limit] }), location);
  });

  it('rejects two rate limits with the same name', async () => {
    const limit = { name: 'same', limit: 1, duration: 1000 };
    await expectInvalid(withApi({ ratelimits: [limit, limit] }), 'body.ratelimits[1].name');
  });

  it('rejects unknown fields', async () => {
    await expectInvalid(withApi({ apiID: 'x' }), 'body.apiID');
  });

  it('writes nothing', async () => {
    const before = await countRows(api.em(), 'keys');
    await api.post('keys.createKey', withApi({ byteLength: 1 }), owner.workspace.rootKey);
    expect(await countRows(api.em(), 'keys')).toBe(before);
  });
});

describe('403', () => {
  it('without create_key, naming it', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_api']);
    const reply = await createKey({}, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.create_key`);
  });

  it('with create_key for another API only', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.create_key']);
    expect((await createKey({}, rootKey)).status).toBe(403);
  });

  it('for a recoverable key without encrypt_key', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.create_key`]);
    const reply = await createKey({ recoverable: true }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.encrypt_key`);
  });

  it.each([[['api.*.create_key']], [['apis.*.create_key']], [[`api.${'API_ID'}.create_key`]]])(
    'not with the grant %j',
    async (grants) => {
      const { rootKey } = await owner.workspace.rootKeyWith(
        grants.map((grant) => grant.replace('API_ID', owner.apiId)),
      );
      expect((await createKey({}, rootKey)).status).toBe(200);
    },
  );
});

describe('404', () => {
  it('for an API that does not exist', async () => {
    expectProblem(await createKey({ apiId: 'api_doesnotexist' }), 404, 'service/data/api_not_found');
  });

  it('for a role that does not exist, writing nothing', async () => {
    const keysBefore = await countRows(api.em(), 'keys');
    const permissionsBefore = await countRows(api.em(), 'permissions');
    const identitiesBefore = await countRows(api.em(), 'identities');
    const reply = await createKey({ roles: ['ghost'], permissions: ['brand.new'], externalId: 'fresh_user' });
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'ghost' was not found.");
    expect(reply.body.error.type).toBe(`${ERRORS_BASE_URL}/service/data/role_not_found`);
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
    expect(await countRows(api.em(), 'permissions')).toBe(permissionsBefore);
    expect(await countRows(api.em(), 'identities')).toBe(identitiesBefore);
  });
});

describe('412', () => {
  it("with roles holding more than the 2000 permissions a key's roles may hold, creating no key", async () => {
    const bounded = await api.workspace();
    const boundedApi = await createTestApi(api, bounded.rootKey);
    for (const name of ['full-a', 'full-b', 'full-c']) {
      const permissions = Array.from({ length: 1000 }, (_, index) => `${name}.${index}`);
      expect((await api.call('permissions.createRole', { name, permissions }, bounded.rootKey)).status).toBe(200);
    }
    const refused = await api.call(
      'keys.createKey',
      { apiId: boundedApi, roles: ['full-a', 'full-b', 'full-c'] },
      bounded.rootKey,
    );
    expectLimitExceeded(refused, "A key's roles may hold at most 2000 permissions between them");
    expect((await api.call('apis.listKeys', { apiId: boundedApi }, bounded.rootKey)).body.data).toEqual([]);
  });

  it("to create permissions past the workspace's limit (LIMIT_PERMISSIONS), creating no key", async () => {
    const bounded = await api.workspace();
    const boundedApi = await createTestApi(api, bounded.rootKey);
    const refused = await callOn(
      api,
      { limits: { permissions: 1 } },
      'keys.createKey',
      { apiId: boundedApi, permissions: ['docs.read', 'docs.write'] },
      bounded.rootKey,
    );
    expectLimitExceeded(refused, 'A workspace may hold at most 1 permissions');
    const listed = await api.call('apis.listKeys', { apiId: boundedApi }, bounded.rootKey);
    expect(listed.body.data).toEqual([]);
  });

  it('when the API has key authentication disabled', async () => {
    const keyless = await createTestApi(api, owner.workspace.rootKey, { keyAuth: { enabled: false } });
    const reply = await createKey({ apiId: keyless });
    expect(reply.status).toBe(412);
    expect(reply.body.error).toMatchObject({
      title: 'Precondition Failed',
      type: `${ERRORS_BASE_URL}/service/application/precondition_failed`,
      detail: 'The requested API is not set up to handle keys: key authentication is disabled for it.',
    });
  });

  it('when a recoverable key is requested and the workspace has no vault', async () => {
    const other = await api.workspace({ vault: false });
    const otherApi = await createTestApi(api, other.rootKey, { encryption: { enabled: true } });
    const reply = await api.post('keys.createKey', { apiId: otherApi, recoverable: true }, other.rootKey);
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The vault is not set up for this workspace, so keys cannot be stored recoverably or decrypted.',
    );
  });

  it('when the server has no master key to open the workspace vault', async () => {
    const reply = await postOn(
      api,
      { masterKey: false },
      'keys.createKey',
      { apiId: owner.apiId, recoverable: true },
      owner.workspace.rootKey,
    );
    expect(reply.status).toBe(412);
  });

  it('when a recoverable key is requested on an API without encryption', async () => {
    const plain = await createTestApi(api, owner.workspace.rootKey);
    const reply = await createKey({ apiId: plain, recoverable: true });
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The requested API does not support key encryption: encryption is not enabled for it.',
    );
  });

  it('reports the vault first, then key authentication, then encryption', async () => {
    const noVault = await api.workspace({ vault: false });
    const closed = await createTestApi(api, noVault.rootKey, { keyAuth: { enabled: false } });
    const first = await api.post('keys.createKey', { apiId: closed, recoverable: true }, noVault.rootKey);
    expect(first.body.error.detail).toMatch(/vault/);
    const closedWithVault = await createTestApi(api, owner.workspace.rootKey, { keyAuth: { enabled: false } });
    const second = await createKey({ apiId: closedWithVault, recoverable: true });
    expect(second.body.error.detail).toMatch(/key authentication is disabled/);
  });

  it('a non-recoverable key needs neither vault nor encryption', async () => {
    const noVault = await api.workspace({ vault: false });
    const plain = await createTestApi(api, noVault.rootKey);
    expect((await api.post('keys.createKey', { apiId: plain }, noVault.rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot create a key on another workspace's API (404, as if it did not exist)", async () => {
    const intruder = await api.workspace();
    const reply = await api.post('keys.createKey', { apiId: owner.apiId }, intruder.rootKey);
    expect(reply.status).toBe(404);
  });

  it("cannot use another workspace's roles", async () => {
    await createRole(api.em(), owner.workspace.workspaceId, 'home-only');
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const reply = await api.post('keys.createKey', { apiId: otherApi, roles: ['home-only'] }, other.rootKey);
    expect(reply.status).toBe(404);
  });

  it("gets its own permissions and identities, never another workspace's", async () => {
    const mine = (await createKey({ permissions: ['shared.slug'], externalId: 'shared_user' })).body.data;
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (
      await api.call(
        'keys.createKey',
        { apiId: otherApi, permissions: ['shared.slug'], externalId: 'shared_user' },
        other.rootKey,
      )
    ).body.data;
    const [myKey, theirKey] = await Promise.all([storedKey(api.em(), mine.keyId), storedKey(api.em(), theirs.keyId)]);
    expect(theirKey?.workspace_id).toBe(other.workspaceId);
    expect(theirKey?.identity_id).not.toBe(myKey?.identity_id);
  });
});

describe('secrets at rest', () => {
  it('stores no plaintext key anywhere: only its hash, and ciphertext for recoverable keys', async () => {
    const plain = (await createKey({ prefix: 'sec' })).body.data;
    const recoverable = (await createKey({ prefix: 'rec', recoverable: true })).body.data;
    const everything = await everyStoredValue(api.em());
    expect(everything).toContain(hashKey(plain.key));
    expect(everything).not.toContain(plain.key);
    expect(everything).not.toContain(recoverable.key);
    expect(everything).not.toContain(owner.workspace.rootKey);
    expect(everything).toContain(hashKey(owner.workspace.rootKey));
  });
});
