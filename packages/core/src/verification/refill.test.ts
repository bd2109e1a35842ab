import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyRefill, latestRefillBoundary, type RefillConfig, type RefillSchedule, refillDue } from './refill.ts';

const HOUR = 3_600_000;
const daily: RefillSchedule = { interval: 'daily', refillDay: null };
const monthlyOn = (refillDay: number): RefillSchedule => ({ interval: 'monthly', refillDay });

describe('latestRefillBoundary, daily', () => {
  it.each([
    [Date.UTC(2027, 5, 15, 13, 45, 12, 345), Date.UTC(2027, 5, 15)],
    [Date.UTC(2027, 5, 15), Date.UTC(2027, 5, 15)],
    [Date.UTC(2027, 5, 15) - 1, Date.UTC(2027, 5, 14)],
    [Date.UTC(2027, 0, 1, 0, 0, 0, 1), Date.UTC(2027, 0, 1)],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2026, 11, 31)],
    [Date.UTC(2028, 1, 29, 12), Date.UTC(2028, 1, 29)],
  ])('at %d is %d', (now, boundary) => {
    expect(latestRefillBoundary(daily, now)).toBe(boundary);
  });

  it('ignores a refillDay', () => {
    expect(latestRefillBoundary({ interval: 'daily', refillDay: 15 }, Date.UTC(2027, 5, 3, 8))).toBe(
      Date.UTC(2027, 5, 3),
    );
  });
});

describe('latestRefillBoundary, monthly', () => {
  it.each([
    ['later the same month', 15, Date.UTC(2027, 5, 20, 8), Date.UTC(2027, 5, 15)],
    ['exactly at the boundary', 15, Date.UTC(2027, 5, 15), Date.UTC(2027, 5, 15)],
    ['just before the boundary', 15, Date.UTC(2027, 5, 15) - 1, Date.UTC(2027, 4, 15)],
    ['earlier in the month', 15, Date.UTC(2027, 5, 3), Date.UTC(2027, 4, 15)],
    ['on day 1', 1, Date.UTC(2027, 5, 1, 0, 0, 0, 1), Date.UTC(2027, 5, 1)],
    ['in January, before the day: December of the previous year', 10, Date.UTC(2027, 0, 5), Date.UTC(2026, 11, 10)],
    ['day 31 in January, from December 31', 31, Date.UTC(2027, 0, 30, 23), Date.UTC(2026, 11, 31)],
    ['day 31 on December 31', 31, Date.UTC(2026, 11, 31, 6), Date.UTC(2026, 11, 31)],
    ['day 31 in a non-leap February: the 28th', 31, Date.UTC(2027, 1, 28), Date.UTC(2027, 1, 28)],
    ['day 31 early in a non-leap February', 31, Date.UTC(2027, 1, 27, 23), Date.UTC(2027, 0, 31)],
    ['day 29 in a non-leap February: the 28th', 29, Date.UTC(2027, 1, 28, 1), Date.UTC(2027, 1, 28)],
    ['day 31 in a leap February: the 29th', 31, Date.UTC(2028, 1, 29), Date.UTC(2028, 1, 29)],
    ['day 30 in a leap February: the 29th', 30, Date.UTC(2028, 1, 29, 5), Date.UTC(2028, 1, 29)],
    ['day 29 in a leap February, on the 28th: still January', 29, Date.UTC(2028, 1, 28, 23), Date.UTC(2028, 0, 29)],
    ['day 31 in February 2100, not a leap year', 31, Date.UTC(2100, 1, 28), Date.UTC(2100, 1, 28)],
    ['day 31 in April: the 30th', 31, Date.UTC(2027, 3, 30), Date.UTC(2027, 3, 30)],
    ['day 31 late on April 29: March 31', 31, Date.UTC(2027, 3, 29, 23, 59), Date.UTC(2027, 2, 31)],
    ['day 31 in March after a short February', 31, Date.UTC(2027, 2, 15), Date.UTC(2027, 1, 28)],
    ['day 31 in May after April 30', 31, Date.UTC(2027, 4, 30), Date.UTC(2027, 3, 30)],
  ])('%s', (_case, refillDay, now, boundary) => {
    expect(latestRefillBoundary(monthlyOn(refillDay), now)).toBe(boundary);
  });

  it.each([[null], [0], [32], [1.5], [Number.NaN]])('rejects refillDay %s', (refillDay) => {
    expect(() => latestRefillBoundary({ interval: 'monthly', refillDay }, Date.UTC(2027, 0, 1))).toThrow(RangeError);
  });
});

describe('boundaries are UTC whatever the time zone of the process', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  // West of UTC the local date is still the previous day (month, year) at these instants, east of
  // it already the next one: a rule that read local time would place the boundary a day or month off.
  it.each([
    ['America/Adak', Date.UTC(2027, 6, 1, 5), 30],
    ['Pacific/Kiritimati', Date.UTC(2027, 5, 15, 20), 16],
  ])('in %s', (zone, instant, localDay) => {
    vi.stubEnv('TZ', zone);
    expect(new Date(instant).getDate()).toBe(localDay);

    expect(latestRefillBoundary(daily, Date.UTC(2027, 6, 1, 5))).toBe(Date.UTC(2027, 6, 1));
    expect(latestRefillBoundary(daily, Date.UTC(2027, 5, 15, 20))).toBe(Date.UTC(2027, 5, 15));
    expect(latestRefillBoundary(monthlyOn(1), Date.UTC(2027, 6, 1, 5))).toBe(Date.UTC(2027, 6, 1));
    expect(latestRefillBoundary(monthlyOn(1), Date.UTC(2028, 0, 1, 3))).toBe(Date.UTC(2028, 0, 1));
    expect(latestRefillBoundary(monthlyOn(31), Date.UTC(2027, 5, 30, 20))).toBe(Date.UTC(2027, 5, 30));
    expect(refillDue(monthlyOn(1), Date.UTC(2027, 5, 1), Date.UTC(2027, 6, 1, 5))).toBe(true);
  });
});

describe('refillDue', () => {
  it('is due once a boundary lies after lastRefillAt', () => {
    expect(refillDue(daily, Date.UTC(2027, 5, 14, 18), Date.UTC(2027, 5, 15, 1))).toBe(true);
    expect(refillDue(daily, Date.UTC(2027, 5, 15, 1), Date.UTC(2027, 5, 15, 23))).toBe(false);
  });

  it('counts a boundary exactly at now as passed', () => {
    expect(refillDue(daily, Date.UTC(2027, 5, 14, 18), Date.UTC(2027, 5, 15))).toBe(true);
    expect(refillDue(monthlyOn(31), Date.UTC(2027, 1, 10), Date.UTC(2027, 1, 28))).toBe(true);
  });

  it('is not due again for a boundary exactly at lastRefillAt', () => {
    expect(refillDue(daily, Date.UTC(2027, 5, 15), Date.UTC(2027, 5, 15))).toBe(false);
    expect(refillDue(daily, Date.UTC(2027, 5, 15), Date.UTC(2027, 5, 15, 23, 59, 59, 999))).toBe(false);
    expect(refillDue(monthlyOn(15), Date.UTC(2027, 5, 15), Date.UTC(2027, 6, 15) - 1)).toBe(false);
    expect(refillDue(monthlyOn(15), Date.UTC(2027, 5, 15), Date.UTC(2027, 6, 15))).toBe(true);
  });

  it('is due on the last day of a short month, not on the 1st of the next one', () => {
    const refill = monthlyOn(31);
    const lastRefillAt = Date.UTC(2027, 2, 31);
    expect(refillDue(refill, lastRefillAt, Date.UTC(2027, 3, 29, 23))).toBe(false);
    expect(refillDue(refill, lastRefillAt, Date.UTC(2027, 3, 30))).toBe(true);
  });

  it('is due across the year boundary', () => {
    expect(refillDue(monthlyOn(1), Date.UTC(2026, 11, 1), Date.UTC(2026, 11, 31, 23))).toBe(false);
    expect(refillDue(monthlyOn(1), Date.UTC(2026, 11, 1), Date.UTC(2027, 0, 1))).toBe(true);
  });

  it('is not due for a key created after the latest boundary', () => {
    expect(refillDue(monthlyOn(1), Date.UTC(2027, 5, 10), Date.UTC(2027, 5, 30))).toBe(false);
  });
});

describe('applyRefill', () => {
  const refill: RefillConfig = { interval: 'monthly', amount: 100, refillDay: 31 };

  it('sets remaining to amount at the boundary and records the boundary', () => {
    expect(
      applyRefill({ remaining: 3, refill, lastRefillAt: Date.UTC(2027, 0, 31) }, Date.UTC(2027, 1, 28, 9)),
    ).toEqual({ remaining: 100, lastRefillAt: Date.UTC(2027, 1, 28), refilled: true });
  });

  it('refills on February 29 in a leap year', () => {
    expect(
      applyRefill({ remaining: 0, refill, lastRefillAt: Date.UTC(2028, 0, 31) }, Date.UTC(2028, 1, 29, 0, 0, 0, 1)),
    ).toEqual({ remaining: 100, lastRefillAt: Date.UTC(2028, 1, 29), refilled: true });
    expect(
      applyRefill({ remaining: 0, refill, lastRefillAt: Date.UTC(2028, 0, 31) }, Date.UTC(2028, 1, 28, 23)),
    ).toEqual({ remaining: 0, lastRefillAt: Date.UTC(2028, 0, 31), refilled: false });
  });

  it('leaves the state alone when no boundary passed', () => {
    const state = { remaining: 7, refill, lastRefillAt: Date.UTC(2027, 1, 28) };
    expect(applyRefill(state, Date.UTC(2027, 2, 30, 23))).toEqual({
      remaining: 7,
      lastRefillAt: Date.UTC(2027, 1, 28),
      refilled: false,
    });
  });

  it('gives exactly one refill to amount after a long downtime', () => {
    const state = { remaining: 5, refill: { ...refill, amount: 50 }, lastRefillAt: Date.UTC(2026, 6, 31) };
    const now = Date.UTC(2027, 3, 30, 12);
    const first = applyRefill(state, now);
    expect(first).toEqual({ remaining: 50, lastRefillAt: Date.UTC(2027, 3, 30), refilled: true });

    const again = applyRefill({ ...state, remaining: first.remaining - 1, lastRefillAt: first.lastRefillAt }, now);
    expect(again).toEqual({ remaining: 49, lastRefillAt: Date.UTC(2027, 3, 30), refilled: false });
  });

  it('refills daily keys once per day', () => {
    const dailyRefill: RefillConfig = { interval: 'daily', amount: 10, refillDay: null };
    const created = Date.UTC(2027, 5, 15, 10);
    expect(
      applyRefill({ remaining: 0, refill: dailyRefill, lastRefillAt: created }, Date.UTC(2027, 5, 15, 23)),
    ).toEqual({
      remaining: 0,
      lastRefillAt: created,
      refilled: false,
    });
    expect(applyRefill({ remaining: 0, refill: dailyRefill, lastRefillAt: created }, Date.UTC(2027, 5, 16))).toEqual({
      remaining: 10,
      lastRefillAt: Date.UTC(2027, 5, 16),
      refilled: true,
    });
    expect(
      applyRefill({ remaining: 2, refill: dailyRefill, lastRefillAt: created }, Date.UTC(2027, 5, 16) + 40 * 24 * HOUR),
    ).toEqual({ remaining: 10, lastRefillAt: Date.UTC(2027, 6, 26), refilled: true });
  });

  it('never reduces a balance at or above amount', () => {
    const lastRefillAt = Date.UTC(2027, 0, 31);
    const now = Date.UTC(2027, 1, 28, 1);
    expect(applyRefill({ remaining: 250, refill, lastRefillAt }, now)).toEqual({
      remaining: 250,
      lastRefillAt: Date.UTC(2027, 1, 28),
      refilled: true,
    });
    expect(applyRefill({ remaining: 100, refill, lastRefillAt }, now).remaining).toBe(100);
  });
});
