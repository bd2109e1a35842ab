import { describe, expect, it } from 'vitest';
import { dayStarts, nextDay, niceCeiling, perDay, toUsagePoints } from './usage.ts';

describe('usage per day', () => {
  const now = new Date(2026, 10, 30, 15, 30).getTime();
  const days = dayStarts(now, 3);

  it('starts each day at local midnight, today last', () => {
    expect(days.map((day) => new Date(day).getDate())).toEqual([28, 29, 30]);
    expect(days.every((day) => new Date(day).getHours() === 0)).toBe(true);
  });

  it('sums counts into the day they fall in and leaves out those outside', () => {
    const end = nextDay(days[2] ?? 0);
    const at = (date: number, hour: number) => new Date(2026, 10, date, hour).getTime();
    const buckets = perDay(
      [
        { time: at(27, 23), valid: 100, refused: 100 },
        { time: at(28, 0), valid: 1, refused: 0 },
        { time: at(28, 23), valid: 2, refused: 1 },
        { time: at(30, 12), valid: 5, refused: 3 },
        { time: end, valid: 100, refused: 100 },
      ],
      days,
      end,
    );
    expect(buckets.map(({ valid, refused }) => [valid, refused])).toEqual([
      [3, 1],
      [0, 0],
      [5, 3],
    ]);
  });

  it('rounds the chart top up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 10, 11, 180, 999].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 200, 1000]);
  });
});

describe('toUsagePoints', () => {
  it('counts valid as valid and every other outcome of the total as refused', () => {
    const point = {
      rateLimited: 0,
      insufficientPermissions: 0,
      forbidden: 0,
      disabled: 0,
      expired: 0,
      usageExceeded: 0,
    };
    expect(
      toUsagePoints([
        { ...point, time: 1, total: 7, valid: 4, rateLimited: 2 },
        { ...point, time: 2, total: 1, valid: 0, usageExceeded: 1 },
        { ...point, time: 3, total: 0, valid: 0 },
      ]),
    ).toEqual([
      { time: 1, valid: 4, refused: 3 },
      { time: 2, valid: 0, refused: 1 },
      { time: 3, valid: 0, refused: 0 },
    ]);
  });
});
