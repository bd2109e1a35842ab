import { applyRefill, type RefillConfig } from './verification/refill.ts';

/** A key's stored credit state. */
export interface CreditsState {
  /** null: unlimited. */
  remaining: number | null;
  refill: RefillConfig | null;
  /** When the last refill was applied (ms); null counts as "never", so the next boundary is due. */
  lastRefillAt: number | null;
}

/**
 * The balance a reader should see at `now`: a refill whose boundary has passed counts even before
 * a verification stores it, exactly as verification would apply it (set to the amount, never lower).
 */
export function effectiveRemaining(credits: CreditsState, now: number): number | null {
  if (credits.remaining === null || credits.refill === null) return credits.remaining;
  return applyRefill(
    { remaining: credits.remaining, refill: credits.refill, lastRefillAt: credits.lastRefillAt ?? 0 },
    now,
  ).remaining;
}

/**
 * The largest balance a key can hold: balances are JSON numbers, exact only up to 2^53 − 1. Every
 * input is bounded by it (an integer beyond it is no exact number), so only a sum can pass it.
 */
export const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

export const CREDITS_UPDATE_DETAILS = {
  valueRequired: 'When specifying an increment or decrement operation, a value must be provided.',
  unlimited: 'You cannot increment or decrement a key with unlimited credits.',
  tooLarge: `The increment would take the key's remaining credits past ${MAX_CREDITS}, the largest balance a key can hold.`,
} as const;

const MINUTE_MS = 60_000;

/**
 * When a rerolled (old) key stops working: `expirationMs` from now, rounded up to a whole minute,
 * or now for 0 (reference 3.4). Whatever expiry it had gives way: the caller asked for this grace
 * period, and could set any expiry with updateKey anyway.
 */
export function rerolledKeyExpiry(now: number, expirationMs: number): number {
  return expirationMs === 0 ? now : Math.ceil((now + expirationMs) / MINUTE_MS) * MINUTE_MS;
}

/**
 * The prefix of a rerolled key: what the old `start` has before its first `_` (as the reference
 * product does), else the API's default prefix.
 */
export function rerolledKeyPrefix(oldStart: string, defaultPrefix: string | null): string | null {
  const separator = oldStart.indexOf('_');
  return separator > 0 ? oldStart.slice(0, separator) : defaultPrefix;
}
