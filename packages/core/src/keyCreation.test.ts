import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PRECONDITION_DETAILS } from './errors.ts';
import { createKey, type KeyApiSettings, type KeyCreationStore, type NewKey } from './keyCreation.ts';
import { hashKey } from './keys.ts';
import { createDataKey, decryptKeyMaterial, unwrapDataKey } from './vault.ts';

const masterKey = randomBytes(32);
const workspaceId = 'ws_1';
const open: KeyApiSettings = { keyAuthEnabled: true, encryptionEnabled: true, defaultPrefix: null, defaultBytes: null };

/** One workspace's APIs and vault in memory; `inserted` holds what the rule stored. */
function memoryStore(apis: Record<string, KeyApiSettings>, options: { vault?: boolean } = {}) {
  const wrapped = options.vault === false ? undefined : createDataKey(masterKey, workspaceId).wrapped;
  const inserted: NewKey[] = [];
  const vaultReads: string[] = [];
  const store: KeyCreationStore = {
    findApi: async (workspace, apiId) => (workspace === workspaceId ? apis[apiId] : undefined),
    findWrappedDataKey: async (workspace) => {
      vaultReads.push(workspace);
      return workspace === workspaceId ? wrapped : undefined;
    },
    insertKey: async (key) => {
      inserted.push(key);
    },
  };
  return { store, inserted, vaultReads, wrapped };
}

const request = { workspaceId, apiId: 'api_1', enabled: true, recoverable: false };

describe('createKey', () => {
  it('stores a key whose hash is that of the plaintext it returns, with everything asked for', async () => {
    const { store, inserted } = memoryStore({ api_1: open });
    const attributes = {
      name: 'Acme',
      externalId: 'user_1',
      meta: { plan: 'pro' },
      roles: ['admin'],
      permissions: ['documents.read'],
      expiresAt: new Date(4102444800000),
      credits: { remaining: 10, refill: { interval: 'daily' as const, amount: 10, refillDay: null } },
      ratelimits: [{ name: 'requests', limit: 10, durationMs: 1000, autoApply: true }],
    };
    const { keyId, key } = await createKey(store, { ...request, ...attributes, prefix: 'sk', byteLength: 32 });

    expect(key).toMatch(/^sk_[1-9A-HJ-NP-Za-km-z]{40,}$/);
    expect(inserted).toEqual([
      {
        ...attributes,
        id: keyId,
        workspaceId,
        apiId: 'api_1',
        enabled: true,
        hash: hashKey(key),
        start: key.slice(0, 'sk_'.length + 4),
        ciphertext: null,
      },
    ]);
  });

  it("takes the prefix and length from the API's defaults, then 16 bytes", async () => {
    const { store } = memoryStore({
      api_1: { ...open, defaultPrefix: 'dflt', defaultBytes: 64 },
      api_2: open,
    });
    const withDefaults = await createKey(store, request);
    expect(withDefaults.key).toMatch(/^dflt_[1-9A-HJ-NP-Za-km-z]{80,}$/);
    const bare = await createKey(store, { ...request, apiId: 'api_2' });
    expect(bare.key).toMatch(/^[1-9A-HJ-NP-Za-km-z]{20,22}$/);
  });

  it('stores a recoverable key encrypted under the workspace data key, bound to its id', async () => {
    const { store, inserted, wrapped } = memoryStore({ api_1: open });
    const { keyId, key } = await createKey(store, { ...request, recoverable: true, vaultMasterKey: masterKey });
    const ciphertext = inserted[0]?.ciphertext;
    if (!wrapped || !ciphertext) throw new Error('expected a wrapped data key and a ciphertext');
    expect(decryptKeyMaterial(unwrapDataKey(masterKey, wrapped, workspaceId), ciphertext, keyId)).toBe(key);
  });

  it('reads the vault only for a recoverable key', async () => {
    const { store, vaultReads } = memoryStore({ api_1: open });
    await createKey(store, { ...request, vaultMasterKey: masterKey });
    expect(vaultReads).toEqual([]);
  });

  it('answers 404 for an API the workspace does not have, before any precondition', async () => {
    const { store, inserted } = memoryStore({ api_1: { ...open, keyAuthEnabled: false } }, { vault: false });
    await expect(createKey(store, { ...request, apiId: 'api_other', recoverable: true })).rejects.toMatchObject({
      status: 404,
      type: 'service/data/api_not_found',
      message: "The API 'api_other' was not found.",
    });
    expect(inserted).toEqual([]);
  });

  describe('412, in the contract order', () => {
    it('the vault first: no master key on this server', async () => {
      const { store, inserted } = memoryStore({ api_1: { ...open, keyAuthEnabled: false, encryptionEnabled: false } });
      await expect(createKey(store, { ...request, recoverable: true })).rejects.toMatchObject({
        status: 412,
        message: PRECONDITION_DETAILS.vaultNotSetUp,
      });
      expect(inserted).toEqual([]);
    });

    it('the vault first: no data key stored for the workspace', async () => {
      const { store } = memoryStore({ api_1: { ...open, keyAuthEnabled: false } }, { vault: false });
      await expect(
        createKey(store, { ...request, recoverable: true, vaultMasterKey: masterKey }),
      ).rejects.toMatchObject({ status: 412, message: PRECONDITION_DETAILS.vaultNotSetUp });
    });

    it('then key authentication, for any key', async () => {
      const { store, inserted } = memoryStore({ api_1: { ...open, keyAuthEnabled: false, encryptionEnabled: false } });
      await expect(
        createKey(store, { ...request, recoverable: true, vaultMasterKey: masterKey }),
      ).rejects.toMatchObject({ status: 412, message: PRECONDITION_DETAILS.keyAuthDisabled });
      await expect(createKey(store, request)).rejects.toMatchObject({
        status: 412,
        message: PRECONDITION_DETAILS.keyAuthDisabled,
      });
      expect(inserted).toEqual([]);
    });

    it('then encryption, for a recoverable key only', async () => {
      const { store, inserted } = memoryStore({ api_1: { ...open, encryptionEnabled: false } });
      await expect(
        createKey(store, { ...request, recoverable: true, vaultMasterKey: masterKey }),
      ).rejects.toMatchObject({ status: 412, message: PRECONDITION_DETAILS.encryptionDisabled });
      expect(inserted).toEqual([]);
      await createKey(store, request);
      expect(inserted).toHaveLength(1);
    });
  });
});
