import type { UsageBucket, Verifications } from './api.ts';

/** The local midnights starting each of the last `days` days, oldest first (today's last). */
export function dayStarts(now: number, days: number): number[] {
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(today);
    day.setDate(today.getDate() - (days - 1 - index));
    return day.getTime();
  });
}

/** One verification count of portal.getVerifications: a time, and how many went which way. */
export interface UsagePoint {
  time: number;
  valid: number;
  refused: number;
}

/**
 * The counts summed into the local days they fall in (the server's buckets may be finer, or UTC
 * days); counts before the first day or from `end` on are left out.
 */
export function perDay(points: UsagePoint[], days: number[], end: number): UsageBucket[] {
  const buckets = days.map((time) => ({ time, valid: 0, refused: 0 }));
  for (const point of points) {
    if (point.time >= end) continue;
    const index = days.findLastIndex((day) => point.time >= day);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.valid += point.valid;
    bucket.refused += point.refused;
  }
  return buckets;
}

/** The local midnight after the day starting at `dayStart`. */
export function nextDay(dayStart: number): number {
  const day = new Date(dayStart);
  day.setDate(day.getDate() + 1);
  return day.getTime();
}

/** A round number at or above `value` for the chart's top: 1, 2, 5, 10, 20, 50, … */
export function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (value <= step * power) return step * power;
  }
  return 10 * power;
}

/**
 * portal.getVerifications' points (one per bucket, as the reference answers them: `total` and a
 * count per outcome) as counts over time: `valid` passed, every other outcome was refused.
 */
export function toUsagePoints(points: Verifications): UsagePoint[] {
  return points.map(({ time, total, valid }) => ({ time, valid, refused: total - valid }));
}
