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
