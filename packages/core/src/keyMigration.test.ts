import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prefixedApiKeyParts, storedKeyHash } from './keyMigration.ts';
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
