import { createHash } from 'node:crypto';

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
