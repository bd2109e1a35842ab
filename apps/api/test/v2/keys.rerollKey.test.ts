import { setTimeout as sleep } from 'node:timers/promises';
import { hashKey } from '@keyplane/core';
import { describe, expect, it } from 'vitest';
import { postOn } from '../appVariants.ts';
import { expectMissingPermissions, expectProblem, invalidInputCheck } from '../assertions.ts';
import {
  countRows,
  createRole,
  grantRolePermission,
  keyPermissionSlugs,
  keyRatelimits,
  keyRoleNames,
} from '../dbInspect.ts';
import { type NewKeyInput, useWorkspaceWithApi } from '../fixtures.ts';
import { createTestApi, createTestKey, useApi } from '../harness.ts';
import { storedKeyRow, verification } from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;

const api = useApi();
/** Encryption on, in a workspace with a vault. */
const owner = useWorkspaceWithApi(api, { vault: true, settings: { encryption: { enabled: true } } });

const newKey = (body: NewKeyInput = {}, targetApi = owner.apiId) =>
  createTestKey(api, owner.workspace.rootKey, { apiId: targetApi, ...body });
const reroll = (body: InputOf<'keys.rerollKey'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.rerollKey', body, rootKey);
const verify = (key: string) => verification(api, owner.workspace.rootKey, key);
const stored = (keyId: string) => storedKeyRow(api.em(), keyId);

describe('200', () => {
  it('gives a new key with everything the old one had; the old one works until its new expiry', async () => {
    const roleId = await createRole(api.em(), owner.workspace.workspaceId, 'reroll-reader');
    await grantRolePermission(api.em(), owner.workspace.workspaceId, roleId, 'reports.read');
    const old = await newKey({
      prefix: 'rr',
      name: 'Acme',
      meta: { plan: 'pro', nested: { seats: 3 } },
      expires: 4102444800000,
      permissions: ['documents.read', 'documents.write'],
      roles: ['reroll-reader'],
      externalId: 'reroll_user',
      credits: { remaining: 7, refill: { interval: 'monthly', amount: 30, refillDay: 31 } },
      ratelimits: [
        { name: 'per-second', limit: 100, duration: 1000, autoApply: true },
        { name: 'on-demand', limit: 5, duration: 60_000 },
      ],
    });
    const reply = await reroll({ keyId: old.keyId, expiration: HOUR });
    expect(reply.status).toBe(200);
    const fresh = reply.body.data;
    expect(fresh).toEqual({ keyId: expect.stringMatching(/^key_/), key: expect.stringMatching(/^rr_/) });
    expect(fresh.keyId).not.toBe(old.keyId);
    expect(fresh.key).not.toBe(old.key);

    const [oldRow, newRow] = await Promise.all([stored(old.keyId), stored(fresh.keyId)]);
    expect(newRow).toMatchObject({
      hash: hashKey(fresh.key),
      start: fresh.key.slice(0, 'rr_'.length + 4),
      api_id: owner.apiId,
      name: 'Acme',
      meta: { plan: 'pro', nested: { seats: 3 } },
      expires_ms: 4102444800000,
      enabled: true,
      identity_id: oldRow.identity_id,
      credits_remaining: '7',
      refill_interval: 'monthly',
      refill_amount: '30',
      refill_day: 31,
      ciphertext: null,
    });
    expect(await keyPermissionSlugs(api.em(), fresh.keyId)).toEqual(['documents.read', 'documents.write']);
    expect(await keyRoleNames(api.em(), fresh.keyId)).toEqual(['reroll-reader']);
    expect(await keyRatelimits(api.em(), fresh.keyId)).toEqual(await keyRatelimits(api.em(), old.keyId));

    const verified = await verify(fresh.key);
    expect(verified).toMatchObject({
      valid: true,
      code: 'VALID',
      keyId: fresh.keyId,
      name: 'Acme',
      credits: 6,
      roles: ['reroll-reader'],
      identity: { id: oldRow.identity_id, externalId: 'reroll_user' },
    });
    expect(verified.permissions).toEqual(expect.arrayContaining(['documents.read', 'documents.write', 'reports.read']));
    expect(verified.ratelimits).toEqual([expect.objectContaining({ name: 'per-second', exceeded: false })]);
    // The old key keeps its own balance and still works for the hour it was given.
    expect(await verify(old.key)).toMatchObject({ code: 'VALID', keyId: old.keyId, credits: 6 });
  });

  it('gives the copied rate limits ids of their own', async () => {
    const old = await newKey({ ratelimits: [{ name: 'limit-a', limit: 1, duration: 1000 }] });
    const fresh = (await reroll({ keyId: old.keyId, expiration: HOUR })).body.data;
    const oldLimits = (await api.call('keys.getKey', { keyId: old.keyId }, owner.workspace.rootKey)).body.data;
    const newLimits = (await api.call('keys.getKey', { keyId: fresh.keyId }, owner.workspace.rootKey)).body.data;
    expect(newLimits.ratelimits).toEqual([
      { id: expect.stringMatching(/^rl_/), name: 'limit-a', limit: 1, duration: 1000, autoApply: false },
    ]);
    expect(newLimits.ratelimits?.[0]?.id).not.toBe(oldLimits.ratelimits?.[0]?.id);
  });

  it('with expiration 0 the old key is EXPIRED at once, though this node had it cached', async () => {
    const old = await newKey();
    expect(await verify(old.key)).toMatchObject({ code: 'VALID' });
    const before = Date.now();
    const fresh = (await reroll({ keyId: old.keyId, expiration: 0 })).body.data;
    const after = Date.now();
    const expires = (await stored(old.keyId)).expires_ms ?? Number.NaN;
    expect(expires).toBeGreaterThanOrEqual(before);
    expect(expires).toBeLessThanOrEqual(after);
    // A key is still valid at exactly its expiry instant: step past it.
    await sleep(2);
    expect(await verify(old.key)).toMatchObject({ valid: false, code: 'EXPIRED' });
    expect(await verify(fresh.key)).toMatchObject({ valid: true, code: 'VALID' });
  });

  it('rounds the old key expiry up to a whole minute', async () => {
    const old = await newKey();
    const before = Date.now();
    await reroll({ keyId: old.keyId, expiration: 90_000 });
    const after = Date.now();
    const expires = (await stored(old.keyId)).expires_ms ?? Number.NaN;
    expect(expires % MINUTE).toBe(0);
    expect(expires).toBeGreaterThanOrEqual(Math.ceil((before + 90_000) / MINUTE) * MINUTE);
    expect(expires).toBeLessThanOrEqual(Math.ceil((after + 90_000) / MINUTE) * MINUTE);
  });

  it('gives the old key the grace period asked for, even past its earlier expiry; the new key keeps that one', async () => {
    const soon = Date.now() + 10_000;
    const old = await newKey({ expires: soon });
    const before = Date.now();
    const fresh = (await reroll({ keyId: old.keyId, expiration: HOUR })).body.data;
    const after = Date.now();
    const expires = (await stored(old.keyId)).expires_ms ?? Number.NaN;
    expect(expires).toBeGreaterThanOrEqual(Math.ceil((before + HOUR) / MINUTE) * MINUTE);
    expect(expires).toBeLessThanOrEqual(Math.ceil((after + HOUR) / MINUTE) * MINUTE);
    expect((await stored(fresh.keyId)).expires_ms).toBe(soon);
  });

  it('gives an expired old key its grace period too', async () => {
    const old = await newKey({ expires: Date.now() - MINUTE });
    expect(await verify(old.key)).toMatchObject({ code: 'EXPIRED' });
    await reroll({ keyId: old.keyId, expiration: HOUR });
    expect(await verify(old.key)).toMatchObject({ valid: true, code: 'VALID' });
  });

  it('copies a disabled state and unlimited credits', async () => {
    const old = await newKey({ enabled: false });
    const fresh = (await reroll({ keyId: old.keyId, expiration: HOUR })).body.data;
    expect(await stored(fresh.keyId)).toMatchObject({ enabled: false, credits_remaining: null, refill_interval: null });
    expect(await verify(fresh.key)).toMatchObject({ code: 'DISABLED' });
  });

  it('takes the prefix from the old start up to its first underscore', async () => {
    const old = await newKey({ prefix: 'sk_live' });
    const fresh = (await reroll({ keyId: old.keyId, expiration: HOUR })).body.data;
    expect(fresh.key).toMatch(/^sk_[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('uses the API default prefix and byte length, not the old length', async () => {
    const withDefaults = await createTestApi(api, owner.workspace.rootKey, { defaultPrefix: 'dflt', defaultBytes: 64 });
    const unprefixed = await newKey({ prefix: undefined, byteLength: 16 }, withDefaults);
    await api.post('apis.updateApi', { apiId: withDefaults, defaultPrefix: null }, owner.workspace.rootKey);
    // The key was created with the API default: its start has a prefix, which the reroll keeps.
    const first = (await reroll({ keyId: unprefixed.keyId, expiration: HOUR })).body.data;
    expect(first.key.startsWith('dflt_')).toBe(true);
    expect(first.key.length).toBeGreaterThan('dflt_'.length + 80);

    const plainApi = await createTestApi(api, owner.workspace.rootKey);
    const bare = await newKey({ byteLength: 200 }, plainApi);
    await api.post('apis.updateApi', { apiId: plainApi, defaultPrefix: 'late' }, owner.workspace.rootKey);
    const second = (await reroll({ keyId: bare.keyId, expiration: HOUR })).body.data;
    expect(second.key).toMatch(/^late_[1-9A-HJ-NP-Za-km-z]{21,22}$/);
  });

  it('encrypts the new key when the old one was recoverable', async () => {
    const old = await newKey({ recoverable: true });
    const fresh = (await reroll({ keyId: old.keyId, expiration: HOUR })).body.data;
    const decrypted = await api.call('keys.getKey', { keyId: fresh.keyId, decrypt: true }, owner.workspace.rootKey);
    expect(decrypted.body.data.plaintext).toBe(fresh.key);
  });

  it('with create_key alone for a key that is not recoverable', async () => {
    const old = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.create_key`]);
    expect((await reroll({ keyId: old.keyId, expiration: 0 }, rootKey)).status).toBe(200);
  });

  it('with create_key and encrypt_key for a recoverable key', async () => {
    const old = await newKey({ recoverable: true });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.create_key', 'api.*.encrypt_key']);
    expect((await reroll({ keyId: old.keyId, expiration: 0 }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'keys.rerollKey', () => owner.workspace.rootKey);

  it.each([
    ['keyId', undefined],
    ['keyId', 'ab'],
    ['keyId', 'key.1'],
    ['expiration', undefined],
    ['expiration', -1],
    ['expiration', 4102444800001],
    ['expiration', 1.5],
    ['expiration', '60000'],
    ['expiration', null],
  ])('rejects %s = %j', async (field, value) => {
    const body: Record<string, unknown> = { keyId: 'key_abc', expiration: 0 };
    if (value === undefined) delete body[field];
    else body[field] = value;
    await expectInvalid(body, `body.${field}`);
  });

  it('rejects unknown fields, writing nothing', async () => {
    const old = await newKey();
    const keysBefore = await countRows(api.em(), 'keys');
    await expectInvalid({ keyId: old.keyId, expiration: 0, prefix: 'x' }, 'body.prefix');
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
  });

  it('accepts the largest expiration', async () => {
    const old = await newKey();
    expect((await reroll({ keyId: old.keyId, expiration: 4102444800000 })).status).toBe(200);
  });
});

describe('403', () => {
  it('without create_key, naming it, writing nothing', async () => {
    const old = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_key', 'api.*.update_key']);
    const keysBefore = await countRows(api.em(), 'keys');
    const reply = await reroll({ keyId: old.keyId, expiration: 0 }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.create_key`);
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
    expect(await verify(old.key)).toMatchObject({ code: 'VALID' });
  });

  it('for a recoverable key without encrypt_key, naming it, writing nothing', async () => {
    const old = await newKey({ recoverable: true });
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.create_key`]);
    const keysBefore = await countRows(api.em(), 'keys');
    const reply = await reroll({ keyId: old.keyId, expiration: 0 }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.encrypt_key`);
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
    expect((await stored(old.keyId)).expires_ms).toBeNull();
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    expectProblem(await reroll({ keyId: 'key_doesnotexist', expiration: 0 }), 404, 'service/data/key_not_found');
  });

  it('to a root key that may act on the keys of every API', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.create_key']);
    expect((await reroll({ keyId: 'key_doesnotexist', expiration: 0 }, rootKey)).status).toBe(404);
  });

  it('for a deleted key', async () => {
    const old = await newKey();
    await api.post('keys.deleteKey', { keyId: old.keyId }, owner.workspace.rootKey);
    expect((await reroll({ keyId: old.keyId, expiration: 0 })).status).toBe(404);
  });
});

describe('412', () => {
  it('for a recoverable key whose API no longer encrypts keys, writing nothing', async () => {
    const encrypting = await createTestApi(api, owner.workspace.rootKey, { encryption: { enabled: true } });
    const old = await newKey({ recoverable: true }, encrypting);
    await api.post('apis.updateApi', { apiId: encrypting, encryption: { enabled: false } }, owner.workspace.rootKey);
    const keysBefore = await countRows(api.em(), 'keys');
    const reply = await reroll({ keyId: old.keyId, expiration: 0 });
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The requested API does not support key encryption: encryption is not enabled for it.',
    );
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
    expect((await stored(old.keyId)).expires_ms).toBeNull();
  });

  const rerollWithoutMasterKey = (keyId: string) =>
    postOn(api, { masterKey: false }, 'keys.rerollKey', { keyId, expiration: 0 }, owner.workspace.rootKey);

  it('for a recoverable key on a server without a master key', async () => {
    const old = await newKey({ recoverable: true });
    const reply = await rerollWithoutMasterKey(old.keyId);
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The vault is not set up for this workspace, so keys cannot be stored recoverably or decrypted.',
    );
  });

  it('a key that is not recoverable needs no vault', async () => {
    const old = await newKey();
    const reply = await rerollWithoutMasterKey(old.keyId);
    expect(reply.status).toBe(200);
  });

  it('when the API no longer accepts keys', async () => {
    const closing = await createTestApi(api, owner.workspace.rootKey);
    const old = await newKey({}, closing);
    await api.post('apis.updateApi', { apiId: closing, keyAuth: { enabled: false } }, owner.workspace.rootKey);
    const reply = await reroll({ keyId: old.keyId, expiration: 0 });
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The requested API is not set up to handle keys: key authentication is disabled for it.',
    );
  });
});

describe('cross-workspace isolation', () => {
  it("cannot reroll another workspace's key, which keeps working unchanged", async () => {
    const old = await newKey();
    const intruder = await api.workspace({ vault: true });
    const keysBefore = await countRows(api.em(), 'keys');
    expect((await reroll({ keyId: old.keyId, expiration: 0 }, intruder.rootKey)).status).toBe(404);
    expect(await countRows(api.em(), 'keys')).toBe(keysBefore);
    expect((await stored(old.keyId)).expires_ms).toBeNull();
    expect(await verify(old.key)).toMatchObject({ code: 'VALID' });
  });
});
