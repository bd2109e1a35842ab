import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forbidden, PRECONDITION_DETAILS } from './errors.ts';
import type { KeyApiSettings } from './keyCreation.ts';
import {
  effectiveRemaining,
  type KeyReplacement,
  type KeyRerollRequest,
  type KeyRerollStore,
  type KeyToReroll,
  rerolledKeyExpiry,
  rerollKey,
} from './keyLifecycle.ts';
import { createdKeyPrefix, rerolledKeyPrefix } from './keyPrefix.ts';
import { hashKey } from './keys.ts';
import { createDataKey, decryptKeyMaterial, unwrapDataKey } from './vault.ts';

const DAY = 86_400_000;
const daily = { interval: 'daily' as const, amount: 100, refillDay: null };

describe('effectiveRemaining', () => {
  const now = Date.UTC(2026, 5, 15, 12);
  const today = Date.UTC(2026, 5, 15);

  it('is the stored balance without a refill, or when unlimited', () => {
    expect(effectiveRemaining({ remaining: 3, refill: null, lastRefillAt: null }, now)).toBe(3);
    expect(effectiveRemaining({ remaining: null, refill: daily, lastRefillAt: null }, now)).toBeNull();
  });

  it('applies a refill whose boundary passed since the last one, setting rather than adding', () => {
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: today - DAY }, now)).toBe(100);
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: null }, now)).toBe(100);
  });

  it('leaves a balance above the amount, and one refilled at the latest boundary, alone', () => {
    expect(effectiveRemaining({ remaining: 500, refill: daily, lastRefillAt: today - DAY }, now)).toBe(500);
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: today }, now)).toBe(3);
  });
});

describe('rerolledKeyExpiry', () => {
  const now = Date.UTC(2026, 0, 1, 10, 0, 30, 250);

  it('is now for an expiration of 0', () => {
    expect(rerolledKeyExpiry(now, 0)).toBe(now);
  });

  it('rounds up to the next whole minute', () => {
    expect(rerolledKeyExpiry(now, 90_000)).toBe(Date.UTC(2026, 0, 1, 10, 3));
    expect(rerolledKeyExpiry(now, 1)).toBe(Date.UTC(2026, 0, 1, 10, 1));
  });

  it('keeps a time that already is a whole minute', () => {
    const onTheMinute = Date.UTC(2026, 0, 1, 10);
    expect(rerolledKeyExpiry(onTheMinute, 60_000)).toBe(Date.UTC(2026, 0, 1, 10, 1));
  });
});

describe('createdKeyPrefix', () => {
  it.each([
    ['sk_abcd', 'sk'],
    ['pay_test_abcd', 'pay_test'],
    ['abcd', null],
  ])('start %j was made with %j', (start, expected) => {
    expect(createdKeyPrefix(start)).toBe(expected);
  });
});

describe('rerolledKeyPrefix', () => {
  it.each([
    ['sk_abcd', null, 'sk'],
    ['sk_live_abcd', 'dflt', 'sk'],
    ['abcd', 'dflt', 'dflt'],
    ['abcd', null, null],
    ['', 'dflt', 'dflt'],
  ])('start %j with default %j gives %j', (start, fallback, expected) => {
    expect(rerolledKeyPrefix(start, fallback)).toBe(expected);
  });
});

describe('rerollKey', () => {
  const masterKey = randomBytes(32);
  const workspaceId = 'ws_1';
  const open: KeyApiSettings = {
    keyAuthEnabled: true,
    encryptionEnabled: true,
    defaultPrefix: null,
    defaultBytes: null,
  };
  const plainKey: KeyToReroll = { id: 'key_1', apiId: 'api_1', hash: 'old-hash', start: 'sk_abcd', recoverable: false };
  const now = Date.UTC(2026, 0, 1, 10, 0, 30);

  /** One workspace's key, API and vault in memory; `replaced` holds what the rule stored. */
  function memoryStore(key: KeyToReroll, api: KeyApiSettings | undefined, options: { vault?: boolean } = {}) {
    const wrapped = options.vault === false ? undefined : createDataKey(masterKey, workspaceId).wrapped;
    const replaced: { old: KeyToReroll; replacement: KeyReplacement }[] = [];
    const vaultReads: string[] = [];
    const store: KeyRerollStore = {
      lockKey: async (workspace, keyId) => (workspace === workspaceId && keyId === key.id ? key : undefined),
      findApi: async (workspace, apiId) => (workspace === workspaceId && apiId === key.apiId ? api : undefined),
      findWrappedDataKey: async (workspace) => {
        vaultReads.push(workspace);
        return workspace === workspaceId ? wrapped : undefined;
      },
      replaceKey: async (_workspace, old, replacement) => {
        replaced.push({ old, replacement });
      },
    };
    return { store, replaced, vaultReads, wrapped };
  }

  const request = (overrides: Partial<KeyRerollRequest> = {}): KeyRerollRequest => ({
    workspaceId,
    keyId: 'key_1',
    expirationMs: 90_000,
    now,
    vaultMasterKey: masterKey,
    authorizeEncryption: () => {},
    ...overrides,
  });

  it("replaces the key with fresh material under the old key's prefix, and expires the old one", async () => {
    const { store, replaced, vaultReads } = memoryStore(plainKey, { ...open, defaultPrefix: 'dflt', defaultBytes: 32 });
    const { keyId, key } = await rerollKey(store, request());
    expect(key).toMatch(/^sk_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    expect(replaced).toEqual([
      {
        old: plainKey,
        replacement: {
          id: keyId,
          hash: hashKey(key),
          start: key.slice(0, 'sk_'.length + 4),
          ciphertext: null,
          oldExpiresAt: new Date(rerolledKeyExpiry(now, 90_000)),
        },
      },
    ]);
    expect(vaultReads).toEqual([]);
  });

  it("takes the API's default prefix for a key without one, and 16 bytes without a default length", async () => {
    const { store } = memoryStore({ ...plainKey, start: 'abcd' }, { ...open, defaultPrefix: 'dflt' });
    expect((await rerollKey(store, request())).key).toMatch(/^dflt_[1-9A-HJ-NP-Za-km-z]{20,22}$/);
  });

  it('encrypts the replacement of a recoverable key, once the caller may store keys encrypted', async () => {
    const recoverable = { ...plainKey, recoverable: true };
    const { store, replaced, wrapped } = memoryStore(recoverable, open);
    const asked: string[] = [];
    const { keyId, key } = await rerollKey(store, request({ authorizeEncryption: () => asked.push('encrypt_key') }));
    const ciphertext = replaced[0]?.replacement.ciphertext;
    if (!wrapped || !ciphertext) throw new Error('expected a wrapped data key and a ciphertext');
    expect(decryptKeyMaterial(unwrapDataKey(masterKey, wrapped, workspaceId), ciphertext, keyId)).toBe(key);
    expect(asked).toEqual(['encrypt_key']);
  });

  it('asks nothing about encryption for a key that is not recoverable', async () => {
    const { store } = memoryStore(plainKey, open);
    await rerollKey(
      store,
      request({
        authorizeEncryption: () => {
          throw forbidden(['api.*.encrypt_key']);
        },
      }),
    );
  });

  it.each([
    ['a key the workspace does not have', 'key_other', open],
    ['a key of a deleted API', 'key_1', undefined],
  ])('answers 404 for %s, changing nothing', async (_case, keyId, api) => {
    const { store, replaced } = memoryStore(plainKey, api);
    await expect(rerollKey(store, request({ keyId }))).rejects.toMatchObject({
      status: 404,
      type: 'service/data/key_not_found',
      message: `The key '${keyId}' was not found.`,
    });
    expect(replaced).toEqual([]);
  });

  it('answers 403 for a recoverable key when the caller may not encrypt, before any precondition', async () => {
    const { store, replaced, vaultReads } = memoryStore({ ...plainKey, recoverable: true }, open, { vault: false });
    await expect(
      rerollKey(
        store,
        request({
          authorizeEncryption: () => {
            throw forbidden(['api.api_1.encrypt_key']);
          },
        }),
      ),
    ).rejects.toMatchObject({ status: 403 });
    expect(vaultReads).toEqual([]);
    expect(replaced).toEqual([]);
  });

  describe('412, as for creating the key', () => {
    const recoverable = { ...plainKey, recoverable: true };

    it('the vault first, for a recoverable key', async () => {
      const { store, replaced } = memoryStore(recoverable, { ...open, keyAuthEnabled: false }, { vault: false });
      await expect(rerollKey(store, request())).rejects.toMatchObject({
        status: 412,
        message: PRECONDITION_DETAILS.vaultNotSetUp,
      });
      await expect(
        rerollKey(memoryStore(recoverable, open).store, request({ vaultMasterKey: undefined })),
      ).rejects.toMatchObject({ status: 412, message: PRECONDITION_DETAILS.vaultNotSetUp });
      expect(replaced).toEqual([]);
    });

    it('then key authentication', async () => {
      const { store, replaced } = memoryStore(plainKey, { ...open, keyAuthEnabled: false });
      await expect(rerollKey(store, request())).rejects.toMatchObject({
        status: 412,
        message: PRECONDITION_DETAILS.keyAuthDisabled,
      });
      expect(replaced).toEqual([]);
    });

    it('then encryption, for a recoverable key', async () => {
      const { store, replaced } = memoryStore(recoverable, { ...open, encryptionEnabled: false });
      await expect(rerollKey(store, request())).rejects.toMatchObject({
        status: 412,
        message: PRECONDITION_DETAILS.encryptionDisabled,
      });
      expect(replaced).toEqual([]);
    });
  });
});
