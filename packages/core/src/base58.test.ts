import { describe, expect, it } from 'vitest';
import { base58Encode } from './base58.ts';

describe('base58Encode', () => {
  it.each([
    ['', ''],
    ['00', '1'],
    ['0000ff', '115Q'],
    ['61', '2g'],
    ['626262', 'a3gV'],
    ['00000000000000000000', '1111111111'],
    ['516b6fcd0f', 'ABnLTmg'],
  ])('encodes %s as %j (Bitcoin alphabet, leading zero bytes as 1)', (hex, expected) => {
    expect(base58Encode(Buffer.from(hex, 'hex'))).toBe(expected);
  });
});
