/**
 * What a key's stored state alone decides about its verification, in verification's order
 * (docs/contract.md, Verification): disabled before expired; credits are judged last, after the
 * request's permissions and rate limits.
 */
export type KeyStanding = 'DISABLED' | 'EXPIRED';

/** The failure a key's own state causes before anything is checked or spent, if any. */
export function keyStandingFailure(
  key: { enabled: boolean; expires: number | null | undefined },
  now: number,
): KeyStanding | undefined {
  if (!key.enabled) return 'DISABLED';
  if (key.expires !== null && key.expires !== undefined && now > key.expires) return 'EXPIRED';
  return undefined;
}

/** A key's status as a reader shows it: what the next plain verification (cost 1) would answer. */
export type KeyStatus = 'disabled' | 'expired' | 'out_of_credits' | 'enabled';

export function keyStatus(
  key: {
    enabled: boolean;
    expires: number | null | undefined;
    /** The balance with any due refill counted; null or undefined: unlimited. */
    remainingCredits: number | null | undefined;
  },
  now: number,
): KeyStatus {
  const standing = keyStandingFailure(key, now);
  if (standing === 'DISABLED') return 'disabled';
  if (standing === 'EXPIRED') return 'expired';
  if (key.remainingCredits !== null && key.remainingCredits !== undefined && key.remainingCredits < 1) {
    return 'out_of_credits';
  }
  return 'enabled';
}

/**
 * When a key's credits count as running low (the dashboard's "Low credits" filter): at most a tenth
 * of its refill amount left, or at most 10 when it has no refill. Only a key that still verifies
 * (status `enabled`) and has at least one credit can be low; at 0 it is `out_of_credits`.
 */
export const LOW_CREDITS = { shareOfRefill: 0.1, withoutRefill: 10 } as const;

export function hasLowCredits(
  key: Parameters<typeof keyStatus>[0] & { refillAmount: number | null | undefined },
  now: number,
): boolean {
  const remaining = key.remainingCredits;
  if (remaining === null || remaining === undefined || keyStatus(key, now) !== 'enabled') return false;
  const threshold =
    key.refillAmount === null || key.refillAmount === undefined
      ? LOW_CREDITS.withoutRefill
      : LOW_CREDITS.shareOfRefill * key.refillAmount;
  return remaining <= threshold;
}
