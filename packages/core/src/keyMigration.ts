import { createHash } from 'node:crypto';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const SHA256_BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** Whether a hash imported from another system is a SHA-256 digest we can store: 64 hex or 44 base64 characters. */
export function isSha256Digest(hash: string): boolean {
  return SHA256_HEX.test(hash) || SHA256_BASE64.test(hash);
}

/**
 * A SHA-256 digest in our stored format (standard base64, what `hashKey` produces), so that the
 * original plaintext key verifies. Undefined for anything else.
 */
export function storedKeyHash(digest: string): string | undefined {
  if (SHA256_HEX.test(digest)) return Buffer.from(digest, 'hex').toString('base64');
  // Re-encoding makes a non-canonical last character canonical.
  if (SHA256_BASE64.test(digest)) return Buffer.from(digest, 'base64').toString('base64');
  return undefined;
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
