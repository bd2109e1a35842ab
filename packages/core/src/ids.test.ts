import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it.each([
    ['key', 'key_'],
    ['api', 'api_'],
    ['workspace', 'ws_'],
    ['request', 'req_'],
    ['identity', 'id_'],
    ['permission', 'perm_'],
    ['role', 'role_'],
    ['user', 'usr_'],
    ['invitation', 'inv_'],
    ['passkey', 'pkey_'],
  ] as const)('gives %s ids the prefix %s and the contract id pattern', (kind, prefix) => {
    const id = newId(kind);
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toMatch(/^[a-zA-Z0-9_]{8,255}$/);
  });

  it('is fixed-width lowercase hex after the prefix', () => {
    expect(newId('key')).toMatch(/^key_[0-9a-f]{32}$/);
  });

  it('starts with the time it was minted', () => {
    const before = Date.now();
    const time = Number.parseInt(newId('key').slice('key_'.length, 'key_'.length + 12), 16);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
  });

  it('sorts ids in the order they were minted, many within one millisecond, and never repeats one', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('key'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('puts ids minted in a later millisecond after earlier ones', async () => {
    const first = newId('key');
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = newId('key');
    expect(later > first).toBe(true);
    expect(later.slice(0, 'key_'.length + 12)).not.toBe(first.slice(0, 'key_'.length + 12));
  });
});
