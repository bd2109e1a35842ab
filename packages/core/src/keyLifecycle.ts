import { keyNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { type KeyApiSettings, newKeyMaterial } from './keyCreation.ts';
import { rerolledKeyPrefix } from './keyPrefix.ts';
import { DEFAULT_KEY_BYTES } from './keys.ts';
import type { VaultStore } from './vault.ts';
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
 * or now for 0 (docs/contract.md#rerolling-keys). Whatever expiry it had gives way: the caller asked for this grace
 * period, and could set any expiry with updateKey anyway.
 */
export function rerolledKeyExpiry(now: number, expirationMs: number): number {
  return expirationMs === 0 ? now : Math.ceil((now + expirationMs) / MINUTE_MS) * MINUTE_MS;
}

/** A live key as rerolling finds it. */
export interface KeyToReroll {
  id: string;
  apiId: string;
  hash: string;
  start: string;
  recoverable: boolean;
}

/** The key that replaces a rerolled one: fresh material, everything else copied. */
export interface KeyReplacement {
  id: string;
  hash: string;
  start: string;
  ciphertext: string | null;
  /** When the old key stops working. */
  oldExpiresAt: Date;
}

/** What rerolling a key reads and writes, on one transaction. */
export interface KeyRerollStore extends VaultStore {
  /** A live key of the workspace, its row locked until the transaction ends. */
  lockKey(workspaceId: string, keyId: string): Promise<KeyToReroll | undefined>;
  /** A live API of the workspace. */
  findApi(workspaceId: string, apiId: string): Promise<KeyApiSettings | undefined>;
  /**
   * Stores the replacement with everything the old key has (name, meta, expiry, enabled, credits
   * and refill, identity, rate limits, direct permissions, roles), then expires the old key.
   */
  replaceKey(workspaceId: string, old: KeyToReroll, replacement: KeyReplacement): Promise<void>;
}

export interface KeyRerollRequest {
  workspaceId: string;
  keyId: string;
  /** How long the old key keeps working, in ms. */
  expirationMs: number;
  now: number;
  /** This server's vault master key, if it has one. */
  vaultMasterKey?: Uint8Array;
  /** Throws when the caller may not store keys encrypted; asked only when the old key is recoverable. */
  authorizeEncryption(): void;
}

/**
 * Replaces a key: a new key (new id, new secret) with everything the old one has, encrypted too
 * when the old one is recoverable, under the same preconditions as creating it; the old key then
 * expires after `expirationMs`.
 */
export async function rerollKey(
  store: KeyRerollStore,
  request: KeyRerollRequest,
): Promise<{ keyId: string; key: string }> {
  const { workspaceId } = request;
  const old = await store.lockKey(workspaceId, request.keyId);
  // A key of a deleted API does not exist for the caller.
  const api = old && (await store.findApi(workspaceId, old.apiId));
  if (!old || !api) throw keyNotFound(request.keyId);
  if (old.recoverable) request.authorizeEncryption();
  const keyId = newId('key');
  const { material, ciphertext } = await newKeyMaterial(store, {
    workspaceId,
    keyId,
    api,
    recoverable: old.recoverable,
    vaultMasterKey: request.vaultMasterKey,
    prefix: rerolledKeyPrefix(old.start, api.defaultPrefix),
    byteLength: api.defaultBytes ?? DEFAULT_KEY_BYTES,
  });
  await store.replaceKey(workspaceId, old, {
    id: keyId,
    hash: material.hash,
    start: material.start,
    ciphertext,
    oldExpiresAt: new Date(rerolledKeyExpiry(request.now, request.expirationMs)),
  });
  return { keyId, key: material.key };
}
