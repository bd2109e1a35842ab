import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey } from './keys.ts';

describe('generateKey', () => {
  it('joins prefix and base58 random part with an underscore', () => {
    const { key, start } = generateKey({ prefix: 'sk_live', byteLength: 16 });
    expect(key).toMatch(/^sk_live_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(start).toBe(key.slice(0, 'sk_live_'.length + 4));
  });

  it('is the random part alone without a prefix', () => {
    const { key, start } = generateKey({});
    expect(key).toMatch(/^[1-9A-HJ-NP-Za-km-z]{21,22}$/);
    expect(start).toBe(key.slice(0, 4));
  });

  it('hashes the whole key string', () => {
    const { key, hash } = generateKey({ prefix: 'p' });
    expect(hash).toBe(createHash('sha256').update(key).digest('base64'));
    expect(hash).toBe(hashKey(key));
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 5_000 }, () => generateKey({}).key));
    expect(keys.size).toBe(5_000);
  });
});
