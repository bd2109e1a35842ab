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
