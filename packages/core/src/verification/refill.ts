export type RefillInterval = 'daily' | 'monthly';

export interface RefillSchedule {
  interval: RefillInterval;
  /** Day of the month (1–31) for monthly refills; ignored for daily ones. */
  refillDay: number | null;
}

export interface RefillConfig extends RefillSchedule {
  amount: number;
}

export interface RefillState {
  remaining: number;
  refill: RefillConfig;
  /** When the key was last refilled or, if never, created (ms since the epoch). */
  lastRefillAt: number;
}

export interface RefillOutcome {
  remaining: number;
  lastRefillAt: number;
  /** Whether a boundary had passed, so `lastRefillAt` moved and the state should be stored. */
  refilled: boolean;
}

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** Midnight UTC of `refillDay` in the month, or of its last day when the month is shorter. */
function monthlyBoundary(year: number, month: number, refillDay: number): number {
  return Date.UTC(year, month, Math.min(refillDay, daysInMonth(year, month)));
}

/**
 * The most recent refill boundary at or before `now` (ms, UTC): midnight UTC for daily refills;
 * midnight UTC on `refillDay` for monthly ones, moved to the month's last day in shorter months.
 */
export function latestRefillBoundary(refill: RefillSchedule, now: number): number {
  if (refill.interval === 'daily') return Math.floor(now / DAY_MS) * DAY_MS;

  const { refillDay } = refill;
  if (refillDay === null || !Number.isInteger(refillDay) || refillDay < 1 || refillDay > 31) {
    throw new RangeError(`A monthly refill needs a refillDay from 1 to 31, got ${refillDay}.`);
  }
  const today = new Date(now);
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth();
  const thisMonth = monthlyBoundary(year, month, refillDay);
  if (thisMonth <= now) return thisMonth;
  return month === 0 ? monthlyBoundary(year - 1, 11, refillDay) : monthlyBoundary(year, month - 1, refillDay);
}

/** Whether a boundary lies in `(lastRefillAt, now]`: one at exactly `lastRefillAt` was already applied. */
export function refillDue(refill: RefillSchedule, lastRefillAt: number, now: number): boolean {
  return latestRefillBoundary(refill, now) > lastRefillAt;
}

/**
 * Applies a refill lazily. However many boundaries passed since `lastRefillAt`, the result is one
 * refill: it sets the balance to `amount` rather than adding, and never lowers a larger balance.
 * `lastRefillAt` records the boundary that was applied.
 */
export function applyRefill(state: RefillState, now: number): RefillOutcome {
  const boundary = latestRefillBoundary(state.refill, now);
  if (boundary <= state.lastRefillAt) {
    return { remaining: state.remaining, lastRefillAt: state.lastRefillAt, refilled: false };
  }
  return { remaining: Math.max(state.remaining, state.refill.amount), lastRefillAt: boundary, refilled: true };
}
