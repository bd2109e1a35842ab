import { keyStatus } from '@keyplane/core/rules';
import type { Key } from './api.ts';

const numbers = new Intl.NumberFormat();
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimes = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const days = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

export const formatNumber = (value: number) => numbers.format(value);
export const formatDate = (time: number) => dates.format(time);
export const formatDateTime = (time: number) => dateTimes.format(time);
export const formatDay = (time: number) => days.format(time);

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "3 hours ago", "in 2 days", "now". */
export function formatRelative(time: number, now: number): string {
  const difference = time - now;
  for (const [unit, size] of STEPS) {
    if (Math.abs(difference) >= size) return relative.format(Math.round(difference / size), unit);
  }
  return 'just now';
}

const STATUS_LABELS = {
  enabled: 'Active',
  disabled: 'Disabled',
  expired: 'Expired',
  out_of_credits: 'Out of credits',
} as const;

/** How the key's next verification would judge it, as the dashboard says it (keyStatus in @keyplane/core). */
export function statusOf(key: Key, now: number): { status: keyof typeof STATUS_LABELS; label: string } {
  const status = keyStatus(
    { enabled: key.enabled, expires: key.expires, remainingCredits: key.credits?.remaining },
    now,
  );
  return { status, label: STATUS_LABELS[status] };
}

/** "1,200 left", "1,200 left, refilled to 1,000 daily" or "Unlimited". */
export function creditsText(key: Key): string {
  const credits = key.credits;
  if (!credits || credits.remaining === null) return 'Unlimited';
  const left = `${formatNumber(credits.remaining)} left`;
  const { refill } = credits;
  if (!refill) return left;
  if (refill.interval === 'daily') return `${left}, refilled to ${formatNumber(refill.amount)} daily`;
  const day = refill.refillDay ? ` on day ${refill.refillDay}` : '';
  return `${left}, refilled to ${formatNumber(refill.amount)} monthly${day}`;
}

const WINDOWS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** "100 per minute", "5 per 10 seconds". */
export function windowText(limit: number, durationMs: number): string {
  for (const [size, unit] of WINDOWS) {
    if (durationMs === size) return `${formatNumber(limit)} per ${unit}`;
    if (durationMs % size === 0) return `${formatNumber(limit)} per ${formatNumber(durationMs / size)} ${unit}s`;
  }
  return `${formatNumber(limit)} per ${formatNumber(durationMs)} ms`;
}

/** The key's rate limits, one phrase each, or "None". */
export function limitsText(key: Key): string {
  const limits = key.ratelimits ?? [];
  if (limits.length === 0) return 'None';
  return limits.map((limit) => `${limit.name}: ${windowText(limit.limit, limit.duration)}`).join('; ');
}

/** What the key is called on the page. */
export const keyLabel = (key: Pick<Key, 'name' | 'start'>) => key.name ?? `Key ${key.start}…`;
