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
  ] as const)('gives %s ids the prefix %s and the contract id pattern', (kind, prefix) => {
    const id = newId(kind);
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toMatch(/^[a-zA-Z0-9_]{8,255}$/);
  });

  it('is fixed-width lowercase hex after the prefix', () => {
    expect(newId('key')).toMatch(/^key_[0-9a-f]{32}$/);
  });

  it('orders ids by creation time', () => {
    const ids = [1_000, 2_000, 1_700_000_000_000, 1_700_000_000_001].map((time) => newId('key', time));
    expect([...ids].sort()).toEqual(ids);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('key', 42)));
    expect(ids.size).toBe(10_000);
  });
});
