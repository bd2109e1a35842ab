import { useSyncExternalStore } from 'react';
import { formatTime } from '../format.ts';

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** The largest unit that fits, with the age below which the next smaller one is used. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** `epochMs` relative to `now`, in its largest whole unit: "3 minutes ago", "in 2 days", "now". */
export function formatRelative(epochMs: number, now: number): string {
  const difference = epochMs - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(difference) >= size) return relative.format(Math.trunc(difference / size), unit);
  }
  return relative.format(0, 'second');
}

// One clock for every relative time on the page, ticking while any is shown, so "3 minutes ago"
// does not stay on screen for an hour.
const TICK_MS = 30_000;
const listeners = new Set<() => void>();
let now = Date.now();
let ticker: ReturnType<typeof setInterval> | undefined;

function subscribe(onTick: () => void): () => void {
  listeners.add(onTick);
  now = Date.now();
  ticker ??= setInterval(() => {
    now = Date.now();
    for (const listener of listeners) listener();
  }, TICK_MS);
  return () => {
    listeners.delete(onTick);
    if (listeners.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
}

/**
 * A time on one line, relative to now ("3 minutes ago"), with the absolute date and time on hover
 * (`title`) and for machines (`dateTime`); `none` when there is no time.
 */
export function RelativeTime({ epochMs, none = '—' }: { epochMs: number | null | undefined; none?: string }) {
  const current = useSyncExternalStore(subscribe, () => now);
  if (epochMs === null || epochMs === undefined) return <>{none}</>;
  return (
    <time className="relative-time" dateTime={new Date(epochMs).toISOString()} title={formatTime(epochMs)}>
      {formatRelative(epochMs, current)}
    </time>
  );
}
