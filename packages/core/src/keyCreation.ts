import { apiNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { keyCreationPrecondition } from './keyPolicy.ts';
import { DEFAULT_KEY_BYTES, type GeneratedKey, generateKey } from './keys.ts';
import { encryptKeyMaterial, loadDataKey, type VaultStore } from './vault.ts';
import type { RefillConfig } from './verification/refill.ts';
import type { RatelimitConfig } from './verification/verify.ts';

/** A key's credits as given to it: null remaining is unlimited. */
export interface KeyCredits {
  remaining: number | null;
  refill?: RefillConfig;
}

/** A rate limit configured on a key or an identity, before it is stored (and gets an id). */
export type KeyRatelimit = Omit<RatelimitConfig, 'id'>;

/** What a new key carries besides its material, whether created here or imported. */
export interface KeyAttributes {
  name?: string;
  /** The identity with this externalId, created when missing. */
  externalId?: string;
  meta?: Record<string, unknown>;
  /** Names of roles that must exist. */
  roles?: string[];
  /** Slugs of permissions, created when missing. */
  permissions?: string[];
  expiresAt?: Date;
  credits?: KeyCredits;
  ratelimits?: KeyRatelimit[];
  enabled: boolean;
}

/** What creating keys needs to know of an API. */
export interface KeyApiSettings {
  keyAuthEnabled: boolean;
  encryptionEnabled: boolean;
  defaultPrefix: string | null;
  defaultBytes: number | null;
}

/** A key ready to store: its material (the plaintext is stored nowhere) and what it carries. */
export interface NewKey extends KeyAttributes {
  id: string;
  workspaceId: string;
  apiId: string;
  hash: string;
  start: string;
  /** The plaintext under the workspace's data key, for a recoverable key. */
  ciphertext: string | null;
}

/** What creating a key reads and writes, all on one transaction. */
export interface KeyCreationStore extends VaultStore {
  /** A live API of the workspace. */
  findApi(workspaceId: string, apiId: string): Promise<KeyApiSettings | undefined>;
  /** Stores the key with its limits, roles, permissions and identity; throws when a role does not exist. */
  insertKey(key: NewKey): Promise<void>;
}

export interface KeyCreationRequest extends KeyAttributes {
  workspaceId: string;
  apiId: string;
  prefix?: string;
  byteLength?: number;
  /** Store the plaintext encrypted, so it can be shown again. */
  recoverable: boolean;
  /** This server's vault master key, if it has one. */
  vaultMasterKey?: Uint8Array;
}

/**
 * Creates a key on a live API of the workspace: 404 for another API, then the 412 preconditions in
 * the contract's order, then the key. Returns the plaintext, which is stored nowhere.
 */
export async function createKey(
  store: KeyCreationStore,
  request: KeyCreationRequest,
): Promise<{ keyId: string; key: string }> {
  const { workspaceId, apiId, prefix, byteLength, recoverable, vaultMasterKey, ...attributes } = request;
  const api = await store.findApi(workspaceId, apiId);
  if (!api) throw apiNotFound(apiId);
  const keyId = newId('key');
  const { material, ciphertext } = await newKeyMaterial(store, {
    workspaceId,
    keyId,
    api,
    recoverable,
    vaultMasterKey,
    prefix: prefix ?? api.defaultPrefix,
    byteLength: byteLength ?? api.defaultBytes ?? DEFAULT_KEY_BYTES,
  });
  await store.insertKey({
    ...attributes,
    id: keyId,
    workspaceId,
    apiId,
    hash: material.hash,
    start: material.start,
    ciphertext,
  });
  return { keyId, key: material.key };
}

interface MaterialRequest {
  workspaceId: string;
  keyId: string;
  api: KeyApiSettings;
  recoverable: boolean;
  vaultMasterKey: Uint8Array | undefined;
  prefix: string | null;
  byteLength: number;
}

/**
 * Fresh material for a key on `api`, encrypted for a recoverable key, once the preconditions hold:
 * a recoverable key needs the workspace's vault (read only then), every key needs key
 * authentication on the API, a recoverable one encryption too.
 */
export async function newKeyMaterial(
  vault: VaultStore,
  request: MaterialRequest,
): Promise<{ material: GeneratedKey; ciphertext: string | null }> {
  const { workspaceId, api, recoverable } = request;
  const dataKey = recoverable ? await loadDataKey(vault, workspaceId, request.vaultMasterKey) : undefined;
  const unmet = keyCreationPrecondition({
    recoverable,
    vaultReady: dataKey !== undefined,
    keyAuthEnabled: api.keyAuthEnabled,
    encryptionEnabled: api.encryptionEnabled,
  });
  if (unmet) throw unmet;
  const material = generateKey({ prefix: request.prefix, byteLength: request.byteLength });
  return { material, ciphertext: dataKey ? encryptKeyMaterial(dataKey, material.key, request.keyId) : null };
}
