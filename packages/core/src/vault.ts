import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM envelope encryption: each workspace has a random data key, stored only wrapped by
 * the server's master key. Ciphertexts are base64 of `iv (12) | tag (16) | ciphertext`.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const VAULT_KEY_BYTES = 32;

export function seal(key: Uint8Array, plaintext: Uint8Array, associatedData: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function open(key: Uint8Array, sealed: string, associatedData: string): Buffer {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** A new data key for a workspace, and its wrapped form for storage. */
export function createDataKey(masterKey: Uint8Array, workspaceId: string): { dataKey: Buffer; wrapped: string } {
  const dataKey = randomBytes(VAULT_KEY_BYTES);
  return { dataKey, wrapped: seal(masterKey, dataKey, `workspace:${workspaceId}`) };
}

export function unwrapDataKey(masterKey: Uint8Array, wrapped: string, workspaceId: string): Buffer {
  return open(masterKey, wrapped, `workspace:${workspaceId}`);
}

/** Where a workspace's wrapped data key is kept. */
export interface VaultStore {
  /** The workspace's data key as stored, wrapped by the master key; undefined when none is stored. */
  findWrappedDataKey(workspaceId: string): Promise<string | undefined>;
}

/**
 * The workspace's data key, or undefined when its vault is not set up: no master key configured on
 * this server to unwrap it (then nothing is read), or no data key stored.
 */
export async function loadDataKey(
  vault: VaultStore,
  workspaceId: string,
  masterKey: Uint8Array | undefined,
): Promise<Buffer | undefined> {
  if (!masterKey) return undefined;
  const wrapped = await vault.findWrappedDataKey(workspaceId);
  return wrapped === undefined ? undefined : unwrapDataKey(masterKey, wrapped, workspaceId);
}

export function encryptKeyMaterial(dataKey: Uint8Array, plaintextKey: string, keyId: string): string {
  return seal(dataKey, Buffer.from(plaintextKey), `key:${keyId}`);
}

export function decryptKeyMaterial(dataKey: Uint8Array, ciphertext: string, keyId: string): string {
  return open(dataKey, ciphertext, `key:${keyId}`).toString();
}
