import { forbiddenBecause } from './errors.ts';

/** Unix ms when a root key stops working; null: never. */
export type RootKeyExpiry = number | null;

export interface RootKeyExpiryChange {
  /** When the calling root key expires. */
  caller: RootKeyExpiry;
  /** When the root key being changed expires now; absent for a key being created. */
  current?: RootKeyExpiry;
  /** The expiry asked for. */
  requested: RootKeyExpiry;
}

const notLaterThan = (expiry: RootKeyExpiry, bound: RootKeyExpiry) =>
  bound === null || (expiry !== null && expiry <= bound);

/**
 * A root key cannot make any root key, itself included, live longer than it will itself, except by
 * leaving one as long-lived as it already is: otherwise a short-lived key could outlast the limit it
 * was given by removing its own expiry, or by creating or reviving a key that lives on.
 */
export function isRootKeyExpiryAllowed({ caller, current, requested }: RootKeyExpiryChange): boolean {
  return notLaterThan(requested, caller) || (current !== undefined && notLaterThan(requested, current));
}

/** Throws 403, saying how late the expiry may be, unless `isRootKeyExpiryAllowed`. */
export function requireRootKeyExpiryAllowed(change: RootKeyExpiryChange): void {
  const { caller, current } = change;
  // Narrows `caller`: a key that never expires may set any expiry.
  if (caller === null || isRootKeyExpiryAllowed(change)) return;
  const keepsCurrent = current !== undefined && current !== null && current > caller;
  const latest = keepsCurrent ? current : caller;
  throw forbiddenBecause(
    `This root key expires at ${new Date(caller).toISOString()} and cannot make a root key live longer than ` +
      `it will itself: \`expires\` must be ${latest} (${new Date(latest).toISOString()}) or earlier` +
      `${keepsCurrent ? ", the key's current expiry" : ''}.`,
  );
}
