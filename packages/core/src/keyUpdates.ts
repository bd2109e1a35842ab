import { badRequest } from './errors.ts';
import type { RefillConfig } from './verification/refill.ts';

/** What updateKey was asked to do with a key's credits: an absent field is left as it is, null clears it. */
export interface CreditsPatch {
  remaining?: number | null;
  refill?: RefillConfig | null;
}

/** The change to store: an absent field is left as it is. */
export interface CreditsChange {
  remaining?: number | null;
  refill?: RefillConfig | null;
}

/**
 * Resolves a credits update against the key's current state. Making a key unlimited also drops its
 * refill (nothing is left to refill), and a refill cannot be put on a key that stays unlimited.
 */
export function planCreditsChange(update: CreditsPatch | null, currentlyLimited: boolean): CreditsChange {
  if (update === null || update.remaining === null) return { remaining: null, refill: null };
  const change: CreditsChange = {};
  if (update.remaining !== undefined) change.remaining = update.remaining;
  if (update.refill !== undefined) change.refill = update.refill;
  if (change.refill && change.remaining === undefined && !currentlyLimited) {
    const message = 'the key has unlimited credits; send `credits.remaining` with the refill';
    throw badRequest(`A refill needs limited credits: ${message}.`, [{ location: 'body.credits.refill', message }]);
  }
  return change;
}
