import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  completeKeyMigration,
  type ImportedKey,
  type KeyMigrationStore,
  type MigratedKey,
  migrateKeys,
  PREFIXED_API_KEY_ALGORITHM,
  prefixedApiKeyParts,
  storedKeyHash,
} from './keyMigration.ts';
import { hashKey } from './keys.ts';

const key = 'legacy_abc123';
const hex = createHash('sha256').update(key).digest('hex');
const base64 = createHash('sha256').update(key).digest('base64');

describe('storedKeyHash', () => {
  it('turns a hex digest, in either case, into what hashKey stores', () => {
    expect(storedKeyHash(hex)).toBe(hashKey(key));
    expect(storedKeyHash(hex.toUpperCase())).toBe(hashKey(key));
  });

  it('keeps a base64 digest as it is', () => {
    expect(storedKeyHash(base64)).toBe(hashKey(key));
  });

  it('makes a non-canonical last base64 character canonical', () => {
    // 'A' then 'B' differ only in the two bits that 32 bytes leave unused.
    const canonical = `${'A'.repeat(42)}A=`;
    expect(storedKeyHash(`${'A'.repeat(42)}B=`)).toBe(canonical);
  });

  it.each([
    'abc',
    'a'.repeat(63),
    'a'.repeat(65),
    'g'.repeat(64),
    'A'.repeat(44),
    `${'-'.repeat(43)}=`,
    '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
  ])('keeps %j, which is no SHA-256 digest, as given', (hash) => {
    expect(storedKeyHash(hash)).toBe(hash);
  });
});

describe('prefixedApiKeyParts', () => {
  it('splits on the last two underscores and hashes the long token as the old system did', () => {
    const parts = prefixedApiKeyParts('my_company_BRTRKFsL_51Fwqfts');
    expect(parts).toEqual({
      importedHash: createHash('sha256').update('51Fwqfts').digest('base64'),
      start: 'my_company_BRTR',
    });
  });

  it.each(['nounderscore', 'one_underscore'])('refuses %s', (key) => {
    expect(prefixedApiKeyParts(key)).toBeUndefined();
  });
});

const workspaceId = 'ws_1';
const api = { keyAuthEnabled: true, encryptionEnabled: false, defaultPrefix: null, defaultBytes: null };

/**
 * One workspace's API, migrations and keys (stored hash to key id) in memory. `skip` stands for
 * hashes a concurrent import takes between the check and the insert.
 */
function memoryStore(options: { taken?: string[]; skip?: string[]; pending?: Map<string, string> } = {}) {
  const migrations: Record<string, string> = { mig_sha: 'sha256', mig_prefixed: PREFIXED_API_KEY_ALGORITHM };
  const inserted: { target: { apiId: string; migrationId: string }; keys: ImportedKey[] }[] = [];
  const rehashed: { importedHash: string; hash: string; start: string }[] = [];
  const pending = options.pending ?? new Map<string, string>();
  const store: KeyMigrationStore = {
    findApi: async (workspace, apiId) => (workspace === workspaceId && apiId === 'api_1' ? api : undefined),
    findMigration: async (workspace, migrationId) => {
      const algorithm = workspace === workspaceId ? migrations[migrationId] : undefined;
      return algorithm === undefined ? undefined : { algorithm };
    },
    takenHashes: async (hashes) => hashes.filter((hash) => options.taken?.includes(hash)),
    insertImportedKeys: async (_workspace, target, keys) => {
      inserted.push({ target, keys });
      return new Set(keys.filter((key) => !options.skip?.includes(key.storedHash)).map((key) => key.id));
    },
    rehashKey: async (workspace, migrationId, rehash) => {
      if (workspace !== workspaceId || pending.get(rehash.importedHash) !== migrationId) return false;
      pending.delete(rehash.importedHash);
      rehashed.push(rehash);
      return true;
    },
  };
  return { store, inserted, rehashed };
}

const imported = (hash: string, extra: Partial<MigratedKey> = {}): MigratedKey => ({ hash, enabled: true, ...extra });

describe('migrateKeys', () => {
  const request = (keys: MigratedKey[], overrides = {}) => ({
    workspaceId,
    migrationId: 'mig_sha',
    apiId: 'api_1',
    keys,
    ...overrides,
  });

  it('imports each key under its stored hash, answering the hashes as sent', async () => {
    const { store, inserted } = memoryStore();
    const first = imported(hex, { name: 'first', roles: ['admin'] });
    const second = imported('$2b$10$opaque');
    const result = await migrateKeys(store, request([first, second]));

    const keys = inserted[0]?.keys ?? [];
    expect(inserted[0]?.target).toEqual({ apiId: 'api_1', migrationId: 'mig_sha' });
    expect(keys.map(({ storedHash, key }) => ({ storedHash, key }))).toEqual([
      { storedHash: hashKey(key), key: first },
      { storedHash: '$2b$10$opaque', key: second },
    ]);
    expect(result).toEqual({
      migrated: [
        { hash: hex, keyId: keys[0]?.id },
        { hash: '$2b$10$opaque', keyId: keys[1]?.id },
      ],
      failed: [],
    });
    expect(keys[0]?.id).toMatch(/^key_/);
  });

  it('fails a hash that is taken, repeated in the request (in any encoding), or taken meanwhile', async () => {
    const { store, inserted } = memoryStore({ taken: ['taken'], skip: ['raced'] });
    const result = await migrateKeys(
      store,
      request([imported(hex), imported('taken'), imported(base64), imported('raced'), imported('fresh')]),
    );
    expect(inserted[0]?.keys.map((key) => key.storedHash)).toEqual([hashKey(key), 'raced', 'fresh']);
    expect(result.migrated.map((migrated) => migrated.hash)).toEqual([hex, 'fresh']);
    expect(result.failed).toEqual(['taken', base64, 'raced']);
  });

  it('answers 404 for an API the workspace does not have, before the migration', async () => {
    const { store, inserted } = memoryStore();
    await expect(
      migrateKeys(store, request([imported(hex)], { apiId: 'api_other', migrationId: 'x' })),
    ).rejects.toMatchObject({
      status: 404,
      type: 'service/data/api_not_found',
      message: "The API 'api_other' was not found.",
    });
    expect(inserted).toEqual([]);
  });

  it('answers 404 for a migration the workspace does not have', async () => {
    const { store, inserted } = memoryStore();
    await expect(migrateKeys(store, request([imported(hex)], { migrationId: 'mig_other' }))).rejects.toMatchObject({
      status: 404,
      type: 'service/data/migration_not_found',
      message: "The migration 'mig_other' was not found.",
    });
    expect(inserted).toEqual([]);
  });
});

describe('completeKeyMigration', () => {
  const rawKey = 'my_company_BRTRKFsL_51Fwqfts';
  const parts = prefixedApiKeyParts(rawKey);
  const importedHash = parts?.importedHash ?? '';
  const request = (migrationId: string, key = rawKey) => ({ workspaceId, migrationId, rawKey: key });

  it('gives a key pending in the migration our hash and start, and answers that hash', async () => {
    const { store, rehashed } = memoryStore({ pending: new Map([[importedHash, 'mig_prefixed']]) });
    expect(await completeKeyMigration(store, request('mig_prefixed'))).toBe(hashKey(rawKey));
    expect(rehashed).toEqual([{ importedHash, hash: hashKey(rawKey), start: 'my_company_BRTR' }]);
  });

  it('answers nothing when no key of the migration matches', async () => {
    const { store } = memoryStore({ pending: new Map([[importedHash, 'mig_elsewhere']]) });
    expect(await completeKeyMigration(store, request('mig_prefixed'))).toBeUndefined();
  });

  it.each(['mig_sha', 'mig_other'])('leaves keys alone for %s, not a migration that rehashes', async (migrationId) => {
    const { store, rehashed } = memoryStore({ pending: new Map([[importedHash, migrationId]]) });
    expect(await completeKeyMigration(store, request(migrationId, 'nounderscore'))).toBeUndefined();
    expect(rehashed).toEqual([]);
  });

  it('answers 400 malformed for a key without the three parts the migration expects', async () => {
    const { store, rehashed } = memoryStore();
    await expect(completeKeyMigration(store, request('mig_prefixed', 'one_underscore'))).rejects.toMatchObject({
      status: 400,
      type: 'service/authentication/malformed',
      fieldErrors: [{ location: 'body.key', message: 'expected prefix_shortToken_longToken' }],
    });
    expect(rehashed).toEqual([]);
  });
});
