import { describe, expect, it } from 'vitest';
import { effectiveRemaining, rerolledKeyExpiry, rerolledKeyPrefix } from './keyLifecycle.ts';

const DAY = 86_400_000;
const daily = { interval: 'daily' as const, amount: 100, refillDay: null };

describe('effectiveRemaining', () => {
  const now = Date.UTC(2026, 5, 15, 12);
  const today = Date.UTC(2026, 5, 15);

  it('is the stored balance without a refill, or when unlimited', () => {
    expect(effectiveRemaining({ remaining: 3, refill: null, lastRefillAt: null }, now)).toBe(3);
    expect(effectiveRemaining({ remaining: null, refill: daily, lastRefillAt: null }, now)).toBeNull();
  });

  it('applies a refill whose boundary passed since the last one, setting rather than adding', () => {
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: today - DAY }, now)).toBe(100);
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: null }, now)).toBe(100);
  });

  it('leaves a balance above the amount, and one refilled at the latest boundary, alone', () => {
    expect(effectiveRemaining({ remaining: 500, refill: daily, lastRefillAt: today - DAY }, now)).toBe(500);
    expect(effectiveRemaining({ remaining: 3, refill: daily, lastRefillAt: today }, now)).toBe(3);
  });
});

describe('rerolledKeyExpiry', () => {
  const now = Date.UTC(2026, 0, 1, 10, 0, 30, 250);

  it('is now for an expiration of 0', () => {
    expect(rerolledKeyExpiry(now, 0)).toBe(now);
  });

  it('rounds up to the next whole minute', () => {
    expect(rerolledKeyExpiry(now, 90_000)).toBe(Date.UTC(2026, 0, 1, 10, 3));
    expect(rerolledKeyExpiry(now, 1)).toBe(Date.UTC(2026, 0, 1, 10, 1));
  });

  it('keeps a time that already is a whole minute', () => {
    const onTheMinute = Date.UTC(2026, 0, 1, 10);
    expect(rerolledKeyExpiry(onTheMinute, 60_000)).toBe(Date.UTC(2026, 0, 1, 10, 1));
  });
});

describe('rerolledKeyPrefix', () => {
  it.each([
    ['sk_abcd', null, 'sk'],
    ['sk_live_abcd', 'dflt', 'sk'],
    ['abcd', 'dflt', 'dflt'],
    ['abcd', null, null],
    ['', 'dflt', 'dflt'],
  ])('start %j with default %j gives %j', (start, fallback, expected) => {
    expect(rerolledKeyPrefix(start, fallback)).toBe(expected);
  });
});
