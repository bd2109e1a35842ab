import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDataKey, decryptKeyMaterial, encryptKeyMaterial, unwrapDataKey } from './vault.ts';

const masterKey = randomBytes(32);

describe('vault', () => {
  it('round-trips a key through the workspace data key', () => {
    const { dataKey, wrapped } = createDataKey(masterKey, 'ws_1');
    const unwrapped = unwrapDataKey(masterKey, wrapped, 'ws_1');
    expect(unwrapped.equals(dataKey)).toBe(true);
    const ciphertext = encryptKeyMaterial(unwrapped, 'sk_secret', 'key_1');
    expect(ciphertext).not.toContain('sk_secret');
    expect(decryptKeyMaterial(dataKey, ciphertext, 'key_1')).toBe('sk_secret');
  });

  it('uses a fresh nonce for every encryption', () => {
    const { dataKey } = createDataKey(masterKey, 'ws_1');
    expect(encryptKeyMaterial(dataKey, 'same', 'key_1')).not.toBe(encryptKeyMaterial(dataKey, 'same', 'key_1'));
  });

  it('refuses a ciphertext moved to another key id', () => {
    const { dataKey } = createDataKey(masterKey, 'ws_1');
    const ciphertext = encryptKeyMaterial(dataKey, 'sk_secret', 'key_1');
    expect(() => decryptKeyMaterial(dataKey, ciphertext, 'key_2')).toThrow();
  });

  it('refuses a data key unwrapped for another workspace or with another master key', () => {
    const { wrapped } = createDataKey(masterKey, 'ws_1');
    expect(() => unwrapDataKey(masterKey, wrapped, 'ws_2')).toThrow();
    expect(() => unwrapDataKey(randomBytes(32), wrapped, 'ws_1')).toThrow();
  });

  it('detects tampering', () => {
    const { dataKey } = createDataKey(masterKey, 'ws_1');
    const raw = Buffer.from(encryptKeyMaterial(dataKey, 'sk_secret', 'key_1'), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => decryptKeyMaterial(dataKey, raw.toString('base64'), 'key_1')).toThrow();
  });
});
