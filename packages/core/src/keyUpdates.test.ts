import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { planCreditsChange } from './keyUpdates.ts';

const daily = { interval: 'daily' as const, amount: 10, refillDay: null };

describe('planCreditsChange', () => {
  it.each([
    ['null', null],
    ['remaining: null', { remaining: null }],
  ])('%s makes the key unlimited and drops the refill', (_, update) => {
    expect(planCreditsChange(update, true)).toEqual({ remaining: null, refill: null });
  });

  it('changes only what is given', () => {
    expect(planCreditsChange({ remaining: 5 }, true)).toEqual({ remaining: 5 });
    expect(planCreditsChange({ refill: null }, true)).toEqual({ refill: null });
    expect(planCreditsChange({}, false)).toEqual({});
  });

  it('sets a refill on a limited key, or with remaining', () => {
    expect(planCreditsChange({ refill: daily }, true)).toEqual({ refill: daily });
    expect(planCreditsChange({ remaining: 1, refill: daily }, false)).toEqual({ remaining: 1, refill: daily });
  });

  it('refuses a refill on a key that stays unlimited, naming the field', () => {
    let error: unknown;
    try {
      planCreditsChange({ refill: daily }, false);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 400, fieldErrors: [{ location: 'body.credits.refill' }] });
  });
});
