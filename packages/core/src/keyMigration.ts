import { createHash } from 'node:crypto';
import { apiNotFound, malformedKey, migrationNotFound } from './errors.ts';
import { newId } from './ids.ts';
import type { KeyApiSettings, KeyAttributes } from './keyCreation.ts';
import { hashKey } from './keys.ts';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const SHA256_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * How a hash imported from another system is stored. A SHA-256 digest (64 hex or 44 base64
 * characters) becomes our format (standard base64, what `hashKey` produces), so that the original
 * plaintext key verifies; any other hash is kept as given, for a migration to rehash later.
 */
export function storedKeyHash(hash: string): string {
  if (SHA256_HEX.test(hash)) return Buffer.from(hash, 'hex').toString('base64');
  // Re-encoding makes a non-canonical last character canonical.
  if (SHA256_BASE64.test(hash)) return Buffer.from(hash, 'base64').toString('base64');
  return hash;
}

/** Keys imported from systems that hash only part of the key, rehashed on their first verification. */
export const PREFIXED_API_KEY_ALGORITHM = 'github.com/seamapi/prefixed-api-key';

/**
 * For a key in the `prefix_shortToken_longToken` format: the hash its old system stored (SHA-256
 * of the long token, in our base64 form) and the `start` the key gets once rehashed. Undefined
 * when the key does not have three parts.
 */
export function prefixedApiKeyParts(rawKey: string): { importedHash: string; start: string } | undefined {
  const parts = rawKey.split('_');
  if (parts.length < 3) return undefined;
  const longToken = parts[parts.length - 1] ?? '';
  const shortToken = parts[parts.length - 2] ?? '';
  const prefix = parts.slice(0, -2).join('_');
  return {
    importedHash: createHash('sha256').update(longToken).digest('base64'),
    start: `${prefix}_${`${shortToken}_${longToken}`.slice(0, 4)}`,
  };
}

/** A key to import, hashed by the customer's system. */
export interface MigratedKey extends KeyAttributes {
  /** The key's hash in the customer's system: a SHA-256 digest of the full key (hex or base64), or any other. */
  hash: string;
}

export interface KeyMigrationResult {
  /** Hashes as the caller sent them. */
  migrated: { hash: string; keyId: string }[];
  /** Hashes that already belong to a key (anywhere: hashes are globally unique), or repeat an earlier item. */
  failed: string[];
}

/** A key about to be imported: its new id, its hash as stored and what the caller sent. */
export interface ImportedKey {
  id: string;
  storedHash: string;
  key: MigratedKey;
}

/** What importing keys, and rehashing them later, reads and writes, on one transaction. */
export interface KeyMigrationStore {
  /** A live API of the workspace. */
  findApi(workspaceId: string, apiId: string): Promise<KeyApiSettings | undefined>;
  /** A migration of the workspace, with the algorithm its keys were hashed with. */
  findMigration(workspaceId: string, migrationId: string): Promise<{ algorithm: string } | undefined>;
  /** Those of these stored hashes that belong to a key already, in any workspace. */
  takenHashes(storedHashes: string[]): Promise<string[]>;
  /**
   * Stores the keys on the API, pending in the migration, with their identities, limits, roles and
   * permissions (all created when missing). Returns the ids of the keys stored: one whose hash was
   * taken meanwhile is skipped.
   */
  insertImportedKeys(
    workspaceId: string,
    target: { apiId: string; migrationId: string },
    keys: ImportedKey[],
  ): Promise<Set<string>>;
  /**
   * Gives the key still pending in the migration under `importedHash` our hash and start, ending
   * its migration; false when there is no such key.
   */
  rehashKey(
    workspaceId: string,
    migrationId: string,
    rehash: { importedHash: string; hash: string; start: string },
  ): Promise<boolean>;
}

export interface KeyImportRequest {
  workspaceId: string;
  migrationId: string;
  apiId: string;
  keys: MigratedKey[];
}

/**
 * Imports keys whose hashes were computed elsewhere onto a live API (404 for another), under a
 * migration of the workspace (404 for another). A hash that is already taken, or repeats an earlier
 * item of the request, is reported as failed rather than failing the whole import.
 */
export async function migrateKeys(store: KeyMigrationStore, request: KeyImportRequest): Promise<KeyMigrationResult> {
  const { workspaceId, migrationId, apiId } = request;
  if (!(await store.findApi(workspaceId, apiId))) throw apiNotFound(apiId);
  if (!(await store.findMigration(workspaceId, migrationId))) throw migrationNotFound(migrationId);

  // One key per hash: a repeat within the request fails like a hash that is already taken.
  const planned = new Map<string, ImportedKey>();
  for (const key of request.keys) {
    const storedHash = storedKeyHash(key.hash);
    if (!planned.has(storedHash)) planned.set(storedHash, { id: newId('key'), storedHash, key });
  }
  for (const hash of await store.takenHashes([...planned.keys()])) planned.delete(hash);
  // A concurrent import may take a hash between the check and the insert: the store skips it.
  const inserted = await store.insertImportedKeys(workspaceId, { apiId, migrationId }, [...planned.values()]);

  const migrated = [...planned.values()].filter((imported) => inserted.has(imported.id));
  const migratedItems = new Set(migrated.map((imported) => imported.key));
  return {
    migrated: migrated.map((imported) => ({ hash: imported.key.hash, keyId: imported.id })),
    failed: request.keys.filter((key) => !migratedItems.has(key)).map((key) => key.hash),
  };
}

export interface KeyRehashRequest {
  workspaceId: string;
  migrationId: string;
  /** The key as presented for verification. */
  rawKey: string;
}

/**
 * On-demand rehash of an imported key whose old system hashed only part of it: when the raw key
 * matches a key still pending in the migration, its hash becomes ours (SHA-256 of the full key) and
 * the migration is done for it. Returns the key's new hash, or undefined when nothing matched. A
 * key of the wrong shape for the migration's algorithm is a 400 `authentication/malformed`.
 */
export async function completeKeyMigration(
  store: KeyMigrationStore,
  request: KeyRehashRequest,
): Promise<string | undefined> {
  const migration = await store.findMigration(request.workspaceId, request.migrationId);
  if (migration?.algorithm !== PREFIXED_API_KEY_ALGORITHM) return undefined;
  const parts = prefixedApiKeyParts(request.rawKey);
  if (!parts) {
    throw malformedKey('Invalid key format: keys of this migration have the form prefix_shortToken_longToken.', [
      { location: 'body.key', message: 'expected prefix_shortToken_longToken' },
    ]);
  }
  const hash = hashKey(request.rawKey);
  const rehashed = await store.rehashKey(request.workspaceId, request.migrationId, { ...parts, hash });
  return rehashed ? hash : undefined;
}
