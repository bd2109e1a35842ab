import { describe, expect, it } from 'vitest';
import { base58Encode, base58EncodeFixed } from './base58.ts';

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

describe('base58EncodeFixed', () => {
  it('pads to the width and sorts like the numbers it encodes', () => {
    const values = [0n, 1n, 57n, 58n, 1000n, 2n ** 64n, 2n ** 127n];
    const encoded = values.map((value) => {
      const bytes = Buffer.alloc(16);
      bytes.writeBigUInt64BE(value >> 64n, 0);
      bytes.writeBigUInt64BE(value & (2n ** 64n - 1n), 8);
      return base58EncodeFixed(bytes, 22);
    });
    expect(encoded.every((text) => text.length === 22)).toBe(true);
    expect([...encoded].sort()).toEqual(encoded);
  });
});
