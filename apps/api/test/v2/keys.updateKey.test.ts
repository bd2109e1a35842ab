import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import {
  expectInvalidInput,
  expectLimitExceeded,
  expectMissingPermissions,
  expectProblem,
  expectRbacNotFound,
  invalidInputCheck,
  itRejectsField,
} from '../assertions.ts';
import {
  countRows,
  createRole,
  grantRolePermission,
  keyPermissionSlugs,
  keyRatelimitIds,
  keyRatelimits,
  keyRoleNames,
  storedKey,
} from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, createTestKey, useApi, withNestedMeta } from '../harness.ts';
import { INVALID_KEY_FIELDS, INVALID_RESOURCE_IDS, storedKeyFields } from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);

beforeAll(async () => {
  await createRole(api.em(), owner.workspace.workspaceId, 'reader');
  await createRole(api.em(), owner.workspace.workspaceId, 'writer');
  await createRole(api.em(), owner.workspace.workspaceId, 'admin');
});

const { newKey } = owner;
// Untyped: many cases here send bodies keys.updateKey does not take, JSON text among them.
const updateKey = (body: unknown, rootKey = owner.workspace.rootKey) => api.post('keys.updateKey', body, rootKey);
const verify = async (key: string, extra: Omit<InputOf<'keys.verifyKey'>, 'key'> = {}) => {
  const reply = await api.call('keys.verifyKey', { key, ...extra }, owner.workspace.rootKey);
  expect(reply.status).toBe(200);
  return reply.body.data.code;
};
async function identityOf(keyId: string) {
  const [found] = await rows(
    api.em(),
    sql<{ externalId: string | null; workspaceId: string | null }>`
      select i.external_id as "externalId", i.workspace_id as "workspaceId"
      from keys k left join identities i on i.id = k.identity_id where k.id = ${keyId}`,
  );
  return found;
}

const roleLinkGrants = ['rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'];
const permissionLinkGrants = ['rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key'];

const fullKey = {
  name: 'original',
  meta: { plan: 'pro' },
  expires: 4102444800000,
  externalId: 'original_user',
  credits: { remaining: 10, refill: { interval: 'daily', amount: 10 } },
  ratelimits: [{ name: 'per-second', limit: 5, duration: 1000 }],
  roles: ['reader'],
  permissions: ['documents.read'],
};

describe('200', () => {
  it('replaces roles and permissions with update_key, the rbac actions and read_permission, existing slugs needing no more', async () => {
    await newKey({ permissions: ['updatekey.existing'] });
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await owner.workspace.rootKeyWith([
      `api.${owner.apiId}.update_key`,
      ...roleLinkGrants,
      ...permissionLinkGrants,
      'rbac.*.read_permission',
    ]);
    const reply = await updateKey({ keyId, roles: ['writer'], permissions: ['updatekey.existing'] }, rootKey);
    expect(reply.status).toBe(200);
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['writer']);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['updatekey.existing']);
  });

  it('creates a new permission slug with rbac.*.create_permission too', async () => {
    const { keyId } = await newKey();
    const grants = ['api.*.update_key', ...permissionLinkGrants, 'rbac.*.create_permission'];
    const { rootKey } = await owner.workspace.rootKeyWith(grants);
    expect((await updateKey({ keyId, permissions: ['updatekey.created'] }, rootKey)).status).toBe(200);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['updatekey.created']);
  });

  it('answers {} and leaves every absent field as it was', async () => {
    const { keyId } = await newKey(fullKey);
    const before = await storedKey(api.em(), keyId);
    const limitsBefore = await keyRatelimitIds(api.em(), keyId);
    const reply = await updateKey({ keyId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await storedKey(api.em(), keyId)).toEqual(before);
    expect(await keyRatelimitIds(api.em(), keyId)).toEqual(limitsBefore);
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['reader']);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['documents.read']);
  });

  it('sets name, meta, expires and enabled', async () => {
    const { keyId } = await newKey(fullKey);
    const fields = {
      name: 'renamed',
      meta: { plan: 'enterprise', seats: { max: 3 } },
      expires: 4000000000000,
      enabled: false,
    };
    expect((await updateKey({ keyId, ...fields })).status).toBe(200);
    expect(await storedKeyFields(api.em(), keyId)).toEqual(fields);
  });

  it('stores meta nested 100 levels deep (the meta object included)', async () => {
    const { keyId } = await newKey();
    const meta = { deep: JSON.parse(`${'['.repeat(99)}${']'.repeat(99)}`) };
    expect((await updateKey({ keyId, meta })).status).toBe(200);
    expect((await storedKey(api.em(), keyId))?.meta).toEqual(meta);
  });

  it('clears name, meta and expires with null', async () => {
    const { keyId } = await newKey(fullKey);
    expect((await updateKey({ keyId, name: null, meta: null, expires: null })).status).toBe(200);
    expect(await storedKey(api.em(), keyId)).toMatchObject({ name: null, meta: null, expires_ms: null });
  });

  it('links the identity of an externalId, creating it when new, and unlinks it with null', async () => {
    const { keyId } = await newKey(fullKey);
    const other = await newKey({ externalId: 'shared_user' });
    expect((await updateKey({ keyId, externalId: 'shared_user' })).status).toBe(200);
    const linked = (await storedKey(api.em(), keyId))?.identity_id;
    expect(linked).toBe((await storedKey(api.em(), other.keyId))?.identity_id);
    expect(linked).toMatch(/^id_/);

    expect((await updateKey({ keyId, externalId: 'brand_new_user' })).status).toBe(200);
    expect(await identityOf(keyId)).toEqual({ externalId: 'brand_new_user', workspaceId: owner.workspace.workspaceId });

    expect((await updateKey({ keyId, externalId: null })).status).toBe(200);
    expect((await storedKey(api.em(), keyId))?.identity_id).toBeNull();
  });

  describe('credits', () => {
    it('sets remaining and keeps the refill', async () => {
      const { keyId } = await newKey(fullKey);
      expect((await updateKey({ keyId, credits: { remaining: 3 } })).status).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({
        credits_remaining: '3',
        refill_interval: 'daily',
        refill_amount: '10',
      });
    });

    it.each([
      ['credits: null', null],
      ['remaining: null', { remaining: null }],
    ])('%s makes the key unlimited and clears the refill', async (_, credits) => {
      const { keyId } = await newKey(fullKey);
      expect((await updateKey({ keyId, credits })).status).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({
        credits_remaining: null,
        refill_interval: null,
        refill_amount: null,
        refill_day: null,
      });
    });

    it('refill: null clears the refill and keeps remaining', async () => {
      const { keyId } = await newKey(fullKey);
      expect((await updateKey({ keyId, credits: { refill: null } })).status).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({
        credits_remaining: '10',
        refill_interval: null,
        refill_amount: null,
      });
    });

    it('sets a monthly refill with its day, also spelled refill_day, in any letter case', async () => {
      const { keyId } = await newKey(fullKey);
      expect(
        (await updateKey({ keyId, credits: { refill: { interval: 'MONTHLY', amount: 50, refillDay: 15 } } })).status,
      ).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({
        credits_remaining: '10',
        refill_interval: 'monthly',
        refill_amount: '50',
        refill_day: 15,
      });
      expect(
        (await updateKey({ keyId, credits: { refill: { interval: 'monthly', amount: 5, refill_day: 31 } } })).status,
      ).toBe(200);
      expect((await storedKey(api.em(), keyId))?.refill_day).toBe(31);
    });

    it('replaces a monthly refill by a daily one, dropping the day', async () => {
      const { keyId } = await newKey({
        credits: { remaining: 1, refill: { interval: 'monthly', amount: 5, refillDay: 3 } },
      });
      expect((await updateKey({ keyId, credits: { refill: { interval: 'daily', amount: 7 } } })).status).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({
        refill_interval: 'daily',
        refill_amount: '7',
        refill_day: null,
      });
    });

    it('makes an unlimited key limited, with a refill in the same request', async () => {
      const { keyId, key } = await newKey();
      expect(await verify(key)).toBe('VALID');
      const credits = { remaining: 1, refill: { interval: 'daily', amount: 1 } };
      expect((await updateKey({ keyId, credits })).status).toBe(200);
      expect(await storedKey(api.em(), keyId)).toMatchObject({ credits_remaining: '1', refill_interval: 'daily' });
      expect(await verify(key)).toBe('VALID');
      expect(await verify(key)).toBe('USAGE_EXCEEDED');
    });
  });

  it('replaces rate limits by name, keeping the ids of names that stay', async () => {
    const { keyId } = await newKey({
      ratelimits: [
        { name: 'keep', limit: 1, duration: 1000 },
        { name: 'drop', limit: 2, duration: 2000 },
      ],
    });
    const before = await keyRatelimitIds(api.em(), keyId);
    const reply = await updateKey({
      keyId,
      ratelimits: [
        { name: 'keep', limit: 100, duration: 60_000, autoApply: true },
        { name: 'new', limit: 3, duration: 3000 },
      ],
    });
    expect(reply.status).toBe(200);
    const after = await keyRatelimitIds(api.em(), keyId);
    expect(Object.keys(after)).toEqual(['keep', 'new']);
    expect(after.keep).toBe(before.keep);
    expect(after.new).toMatch(/^rl_/);
    expect(await keyRatelimits(api.em(), keyId)).toEqual([
      { name: 'keep', limit: 100, duration_ms: '60000', auto_apply: true },
      { name: 'new', limit: 3, duration_ms: '3000', auto_apply: false },
    ]);
  });

  it('removes every rate limit with []', async () => {
    const { keyId } = await newKey(fullKey);
    expect((await updateKey({ keyId, ratelimits: [] })).status).toBe(200);
    expect(await keyRatelimits(api.em(), keyId)).toEqual([]);
  });

  it('replaces the roles, and clears them with []', async () => {
    const { keyId } = await newKey({ roles: ['reader', 'writer'] });
    expect((await updateKey({ keyId, roles: ['writer', 'admin', 'admin'] })).status).toBe(200);
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['admin', 'writer']);
    expect((await updateKey({ keyId, roles: [] })).status).toBe(200);
    expect(await keyRoleNames(api.em(), keyId)).toEqual([]);
  });

  it('replaces the direct permissions, creating missing slugs, and clears them with []', async () => {
    const { keyId } = await newKey({ permissions: ['documents.read', 'documents.write'] });
    const before = await countRows(api.em(), 'permissions');
    expect((await updateKey({ keyId, permissions: ['documents.write', 'updatekey.fresh'] })).status).toBe(200);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['documents.write', 'updatekey.fresh']);
    expect(await countRows(api.em(), 'permissions')).toBe(before + 1);
    expect((await updateKey({ keyId, permissions: [] })).status).toBe(200);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual([]);
  });

  it('takes role names and permission slugs of 128 characters, as permissions.* do', async () => {
    const role = 'u'.repeat(128);
    const slug = 'v'.repeat(128);
    expect((await api.post('permissions.createRole', { name: role }, owner.workspace.rootKey)).status).toBe(200);
    const { keyId } = await newKey();
    expect((await updateKey({ keyId, roles: [role], permissions: [slug] })).status).toBe(200);
    expect(await keyRoleNames(api.em(), keyId)).toEqual([role]);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual([slug]);
  });

  it('changes everything in one request', async () => {
    const { keyId } = await newKey(fullKey);
    const reply = await updateKey({
      keyId,
      name: 'all',
      externalId: 'all_user',
      meta: { all: true },
      expires: 4100000000000,
      credits: { remaining: 99, refill: { interval: 'monthly', amount: 99, refillDay: 1 } },
      ratelimits: [{ name: 'per-minute', limit: 60, duration: 60_000 }],
      enabled: false,
      roles: ['admin'],
      permissions: ['all.things'],
    });
    expect(reply.status).toBe(200);
    expect(await storedKey(api.em(), keyId)).toMatchObject({
      name: 'all',
      meta: { all: true },
      expires_ms: 4100000000000,
      credits_remaining: '99',
      refill_interval: 'monthly',
      refill_day: 1,
      enabled: false,
    });
    expect((await identityOf(keyId))?.externalId).toBe('all_user');
    expect(Object.keys(await keyRatelimitIds(api.em(), keyId))).toEqual(['per-minute']);
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['admin']);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['all.things']);
  });

  describe('verification sees the change at once (the cache is warm)', () => {
    it('enabled: false gives DISABLED, enabled: true VALID again', async () => {
      const { keyId, key } = await newKey();
      // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
      expect(await verify(key)).toBe('VALID');
      expect(await verify(key)).toBe('VALID');
      await updateKey({ keyId, enabled: false });
      expect(await verify(key)).toBe('DISABLED');
      await updateKey({ keyId, enabled: true });
      expect(await verify(key)).toBe('VALID');
    });

    it('an expiry in the past gives EXPIRED, clearing it VALID again', async () => {
      const { keyId, key } = await newKey();
      // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
      expect(await verify(key)).toBe('VALID');
      expect(await verify(key)).toBe('VALID');
      await updateKey({ keyId, expires: Date.now() - 1000 });
      expect(await verify(key)).toBe('EXPIRED');
      await updateKey({ keyId, expires: null });
      expect(await verify(key)).toBe('VALID');
    });

    it('a permissions query flips with the direct permissions', async () => {
      const { keyId, key } = await newKey({ permissions: ['documents.read'] });
      const query = { permissions: 'documents.write' };
      // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
      expect(await verify(key, query)).toBe('INSUFFICIENT_PERMISSIONS');
      expect(await verify(key, query)).toBe('INSUFFICIENT_PERMISSIONS');
      await updateKey({ keyId, permissions: ['documents.write'] });
      expect(await verify(key, query)).toBe('VALID');
      await updateKey({ keyId, permissions: [] });
      expect(await verify(key, query)).toBe('INSUFFICIENT_PERMISSIONS');
    });

    it("a permissions query flips with the roles' permissions", async () => {
      const roleId = await createRole(api.em(), owner.workspace.workspaceId, 'billing');
      await grantRolePermission(api.em(), owner.workspace.workspaceId, roleId, 'billing.read');
      const { keyId, key } = await newKey();
      const query = { permissions: 'billing.read' };
      // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
      expect(await verify(key, query)).toBe('INSUFFICIENT_PERMISSIONS');
      expect(await verify(key, query)).toBe('INSUFFICIENT_PERMISSIONS');
      await updateKey({ keyId, roles: ['billing'] });
      expect(await verify(key, query)).toBe('VALID');
    });

    it('credits set to 0 give USAGE_EXCEEDED, null makes the key unlimited', async () => {
      const { keyId, key } = await newKey({ credits: { remaining: 100 } });
      // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
      expect(await verify(key)).toBe('VALID');
      expect(await verify(key)).toBe('VALID');
      await updateKey({ keyId, credits: { remaining: 0 } });
      expect(await verify(key)).toBe('USAGE_EXCEEDED');
      await updateKey({ keyId, credits: null });
      expect(await verify(key)).toBe('VALID');
    });
  });
});

describe('400', () => {
  let keyId: string;
  beforeAll(async () => {
    keyId = (await newKey(fullKey)).keyId;
  });
  const expectInvalid = async (body: unknown, location: string) => {
    const reply = await updateKey(body);
    expectInvalidInput(reply, location);
    return reply;
  };

  it('requires keyId', async () => {
    await expectInvalid({ name: 'x' }, 'body.keyId');
  });

  itRejectsField(
    invalidInputCheck(api, 'keys.updateKey', () => owner.workspace.rootKey),
    'keyId',
    INVALID_RESOURCE_IDS,
  );

  it.each([
    ...INVALID_KEY_FIELDS,
    ['name', 'nul\u0000'],
    ['meta', { note: 'nul\u0000' }],
    ['meta', { 'nul\u0000': 1 }],
    ['meta', { deep: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) }],
    ['credits', 5],
    ['ratelimits', null],
    ['enabled', null],
    ['roles', null],
    ['permissions', null],
  ])('rejects %s = %j', async (field, value) => {
    await expectInvalid({ keyId, [field]: value }, `body.${field}`);
  });

  it('rejects meta nested 5000 levels deep', async () => {
    await expectInvalid(withNestedMeta({ keyId }, 5000), 'body.meta');
  });

  it.each([
    [{ remaining: -1 }, 'body.credits.remaining'],
    [{ remaining: 1.5 }, 'body.credits.remaining'],
    [{ remaining: 2 ** 53 }, 'body.credits.remaining'],
    [{ remaining: null, refill: { interval: 'daily', amount: 1 } }, 'body.credits.remaining'],
    [{ refill: { interval: 'weekly', amount: 1 } }, 'body.credits.refill.interval'],
    [{ refill: { interval: 'daily', amount: 0 } }, 'body.credits.refill.amount'],
    [{ refill: { interval: 'daily', amount: 2 ** 53 } }, 'body.credits.refill.amount'],
    [{ refill: { interval: 'monthly', amount: 1 } }, 'body.credits.refill.refillDay'],
    [{ refill: { interval: 'monthly', amount: 1, refillDay: 32 } }, 'body.credits.refill.refillDay'],
    [{ refill: { interval: 'daily', amount: 1, refill_day: 2 } }, 'body.credits.refill.refill_day'],
    [{ extra: 1 }, 'body.credits.extra'],
  ])('rejects credits %j', async (credits, location) => {
    await expectInvalid({ keyId, credits }, location);
  });

  it('rejects a refillDay on a daily refill, saying so', async () => {
    const reply = await expectInvalid(
      { keyId, credits: { refill: { interval: 'daily', amount: 1, refillDay: 2 } } },
      'body.credits.refill.refillDay',
    );
    expect(reply.body.error.errors?.[0]?.message).toBe(
      '`refillDay` must not be provided when the refill interval is `daily`.',
    );
  });

  it('rejects a refill on a key that stays unlimited, changing nothing', async () => {
    const { keyId: unlimited } = await newKey({ name: 'unlimited' });
    const reply = await expectInvalid(
      { keyId: unlimited, name: 'changed', credits: { refill: { interval: 'daily', amount: 5 } } },
      'body.credits.refill',
    );
    expect(reply.body.error.detail).toMatch(/unlimited credits/);
    expect(await storedKey(api.em(), unlimited)).toMatchObject({ name: 'unlimited', refill_interval: null });
  });

  it.each([
    [{ name: 'ab', limit: 1, duration: 1000 }, 'body.ratelimits[0].name'],
    [{ name: 'abc', limit: 0, duration: 1000 }, 'body.ratelimits[0].limit'],
    [{ name: 'abc', limit: 1, duration: 999 }, 'body.ratelimits[0].duration'],
    [{ name: 'abc', limit: 2 ** 31, duration: 1000 }, 'body.ratelimits[0].limit'],
  ])('rejects the rate limit %j', async (limit, location) => {
    await expectInvalid({ keyId, ratelimits: [limit] }, location);
  });

  it('rejects two rate limits with the same name', async () => {
    const limit = { name: 'same', limit: 1, duration: 1000 };
    await expectInvalid({ keyId, ratelimits: [limit, limit] }, 'body.ratelimits[1].name');
  });

  it('rejects bad role names and permission slugs', async () => {
    await expectInvalid({ keyId, roles: ['ro le'] }, 'body.roles[0]');
    await expectInvalid({ keyId, permissions: [''] }, 'body.permissions[0]');
    await expectInvalid({ keyId, roles: ['r'.repeat(129)] }, 'body.roles[0]');
    await expectInvalid({ keyId, permissions: ['p'.repeat(129)] }, 'body.permissions[0]');
  });

  it('rejects unknown fields', async () => {
    await expectInvalid({ keyId, apiId: owner.apiId }, 'body.apiId');
  });
});

describe('403', () => {
  it('without update_key, naming it, and changes nothing', async () => {
    const { keyId } = await newKey({ name: 'unchanged' });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_key', 'api.*.create_key']);
    const reply = await updateKey({ keyId, name: 'changed' }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.update_key`);
    expect((await storedKey(api.em(), keyId))?.name).toBe('unchanged');
  });

  it('with update_key for another API only', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.update_key']);
    expect((await updateKey({ keyId }, rootKey)).status).toBe(403);
  });

  it.each([['api.*.update_key'], ['apis.*.update_key'], ['api.API_ID.update_key']])(
    'with %s alone, changing what is not roles or permissions only',
    async (grant) => {
      const { keyId } = await newKey({ roles: ['reader'], permissions: ['documents.read'] });
      const { rootKey } = await owner.workspace.rootKeyWith([grant.replace('API_ID', owner.apiId)]);
      expect((await updateKey({ keyId, name: 'renamed', externalId: 'grant_user' }, rootKey)).status).toBe(200);
      const reply = await updateKey({ keyId, roles: [], permissions: ['documents.read'] }, rootKey);
      expect(reply.status).toBe(403);
      expect(reply.body.error.detail).toBe(
        "Missing permissions: 'rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key', " +
          "'rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key', 'rbac.*.create_permission'.",
      );
      expect(await keyRoleNames(api.em(), keyId)).toEqual(['reader']);
    },
  );

  it('naming permission slugs without rbac.*.read_permission, rbac.*.create_permission even for slugs that exist', async () => {
    await newKey({ permissions: ['updatekey.known'] });
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key', ...permissionLinkGrants]);
    const reply = await updateKey({ keyId, permissions: ['updatekey.known'] }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.create_permission');
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual([]);
  });

  it('for a key that does not exist as for a key of another API, to a root key of one API', async () => {
    const { keyId } = await newKey({ name: 'unchanged' });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_mine.update_key', 'api.api_mine.read_key']);
    const existing = await updateKey({ keyId, name: 'changed' }, rootKey);
    const missing = await updateKey({ keyId: 'key_doesnotexist', name: 'changed' }, rootKey);
    expect(existing.body.error).toEqual(missing.body.error);
    expectMissingPermissions(missing, 'api.*.update_key');
    expect((await storedKey(api.em(), keyId))?.name).toBe('unchanged');
  });

  it('roles need the role link actions, naming them and changing nothing else either', async () => {
    const { keyId } = await newKey({ name: 'unchanged', roles: ['reader'] });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key', ...permissionLinkGrants]);
    const reply = await updateKey({ keyId, name: 'changed', roles: ['writer'] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(
      "Missing permissions: 'rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'.",
    );
    expect((await storedKey(api.em(), keyId))?.name).toBe('unchanged');
    expect(await keyRoleNames(api.em(), keyId)).toEqual(['reader']);
  });

  it('permissions need the permission link actions, naming them', async () => {
    const { keyId } = await newKey({ permissions: ['documents.read'] });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key', ...roleLinkGrants]);
    const reply = await updateKey({ keyId, permissions: [] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(
      "Missing permissions: 'rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key'.",
    );
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['documents.read']);
  });

  it('a permission slug that does not exist yet needs rbac.*.create_permission, creating and changing nothing', async () => {
    const { keyId } = await newKey({ name: 'unchanged', permissions: ['documents.read'] });
    const permissionsBefore = await countRows(api.em(), 'permissions');
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key', ...permissionLinkGrants]);
    const reply = await updateKey({ keyId, name: 'changed', permissions: ['updatekey.never.created'] }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.create_permission');
    expect(await countRows(api.em(), 'permissions')).toBe(permissionsBefore);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['documents.read']);
    expect((await storedKey(api.em(), keyId))?.name).toBe('unchanged');
  });

  it('without update_key either, naming everything missing in one answer', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_key']);
    const reply = await updateKey({ keyId, roles: [] }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toBe(
      `Missing permissions: 'api.${owner.apiId}.update_key', 'rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'.`,
    );
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    expectProblem(await updateKey({ keyId: 'key_doesnotexist' }), 404, 'service/data/key_not_found');
  });

  it('for a key that does not exist, before any other missing permission, to a root key of every API', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key']);
    expect((await updateKey({ keyId: 'key_doesnotexist', roles: [], permissions: [] }, rootKey)).status).toBe(404);
  });

  it('for a deleted key', async () => {
    const { keyId } = await newKey();
    await rows(api.em(), sql`update keys set deleted_at = now() where id = ${keyId}`);
    expect((await updateKey({ keyId, name: 'x' })).status).toBe(404);
  });

  it('for a role that does not exist, writing nothing', async () => {
    const { keyId } = await newKey(fullKey);
    const before = await storedKey(api.em(), keyId);
    const permissionsBefore = await countRows(api.em(), 'permissions');
    const identitiesBefore = await countRows(api.em(), 'identities');
    const reply = await updateKey({
      keyId,
      name: 'changed',
      enabled: false,
      externalId: 'ghost_user',
      permissions: ['ghost.permission'],
      ratelimits: [],
      roles: ['reader', 'ghost'],
    });
    expectRbacNotFound(reply, 'role', 'ghost');
    expect(await storedKey(api.em(), keyId)).toEqual(before);
    expect(await keyRatelimits(api.em(), keyId)).toHaveLength(1);
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual(['documents.read']);
    expect(await countRows(api.em(), 'permissions')).toBe(permissionsBefore);
    expect(await countRows(api.em(), 'identities')).toBe(identitiesBefore);
  });
});

describe('412', () => {
  it("to create permissions past the workspace's limit (LIMIT_PERMISSIONS), changing nothing", async () => {
    const bounded = await api.workspace();
    const { keyId } = await createTestKey(api, bounded.rootKey, {
      apiId: await createTestApi(api, bounded.rootKey),
      name: 'unchanged',
    });
    const refused = await callOn(
      api,
      { limits: { permissions: 1 } },
      'keys.updateKey',
      { keyId, name: 'changed', permissions: ['docs.read', 'docs.write'] },
      bounded.rootKey,
    );
    expectLimitExceeded(refused, 'A workspace may hold at most 1 permissions');
    expect((await storedKey(api.em(), keyId))?.name).toBe('unchanged');
    expect(await keyPermissionSlugs(api.em(), keyId)).toEqual([]);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot update another workspace's key (404) and leaves it alone", async () => {
    const { keyId, key } = await newKey({ name: 'mine' });
    const intruder = await api.workspace();
    const reply = await updateKey({ keyId, name: 'stolen', enabled: false }, intruder.rootKey);
    expect(reply.status).toBe(404);
    expect((await storedKey(api.em(), keyId))?.name).toBe('mine');
    expect(await verify(key)).toBe('VALID');
  });

  it("cannot give its key another workspace's roles", async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const created = await api.call('keys.createKey', { apiId: otherApi }, other.rootKey);
    const reply = await updateKey({ keyId: created.body.data.keyId, roles: ['reader'] }, other.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'reader' was not found.");
  });

  it("links identities and permissions of the key's own workspace only", async () => {
    const { keyId: mine } = await newKey({ externalId: 'iso_user', permissions: ['iso.slug'] });
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    const theirs = (await api.call('keys.createKey', { apiId: otherApi }, other.rootKey)).body.data;
    expect(
      (await updateKey({ keyId: theirs.keyId, externalId: 'iso_user', permissions: ['iso.slug'] }, other.rootKey))
        .status,
    ).toBe(200);
    expect(await identityOf(theirs.keyId)).toEqual({ externalId: 'iso_user', workspaceId: other.workspaceId });
    expect((await storedKey(api.em(), theirs.keyId))?.identity_id).not.toBe(
      (await storedKey(api.em(), mine))?.identity_id,
    );
    const [permission] = await rows(
      api.em(),
      sql<{ workspaceId: string }>`
        select p.workspace_id as "workspaceId" from keys_permissions kp join permissions p on p.id = kp.permission_id
        where kp.key_id = ${theirs.keyId}`,
    );
    expect(permission?.workspaceId).toBe(other.workspaceId);
  });
});
