import { describe, expect, it } from 'vitest';
import { Tally } from './tally.ts';

describe('Tally', () => {
  it('counts each label apart', () => {
    const tally = new Tally();
    tally.add('VALID');
    tally.add('EXPIRED');
    tally.add('VALID');
    expect(new Map(tally.entries())).toEqual(
      new Map([
        ['VALID', 2],
        ['EXPIRED', 1],
      ]),
    );
  });
});
