import { badRequest, keyNotFound } from './errors.ts';
import { CREDITS_UPDATE_DETAILS, type CreditsState, MAX_CREDITS } from './keyLifecycle.ts';
import { latestRefillBoundary } from './verification/refill.ts';

/**
 * `set` with a number sets the balance; with null the key becomes unlimited and loses its refill;
 * with no value it becomes unlimited but keeps its refill (the reference product's edge case).
 */
export type CreditsUpdate =
  | { operation: 'set'; value: number | null | undefined }
  | { operation: 'increment' | 'decrement'; value: number };

/** The one write a credits update makes to a key's row. */
export interface CreditsWrite {
  update: CreditsUpdate;
  /**
   * The boundary (ms) of a refill due before the update: the balance is first raised to the refill
   * amount (never lowered) and the refill recorded at that boundary.
   */
  refillAt?: number;
  /** The largest balance an increment may leave. */
  ceiling: number;
}

/** What a credits update reads and writes, on one transaction. */
export interface KeyCreditsStore {
  /** A live key's credits, its row locked until the transaction ends; undefined when there is no such key. */
  lockCredits(workspaceId: string, keyId: string): Promise<CreditsState | undefined>;
  /**
   * Makes the write to the locked key in ONE statement and returns the credits after it; undefined,
   * writing nothing, when an increment would take the balance past the ceiling. The statement judges
   * that on the balance it changes, so no other writer can slip in between.
   */
  writeCredits(workspaceId: string, keyId: string, write: CreditsWrite): Promise<CreditsState | undefined>;
}

export interface CreditsUpdateRequest {
  workspaceId: string;
  keyId: string;
  update: CreditsUpdate;
  now: number;
}

/**
 * Changes a key's credits. A refill whose boundary has passed is applied first (and recorded),
 * exactly as verification would, so the change acts on the balance a reader sees. Decrements stop
 * at 0; increments and decrements of an unlimited key, and an increment past {@link MAX_CREDITS},
 * are refused (400), changing nothing.
 */
export async function updateKeyCredits(store: KeyCreditsStore, request: CreditsUpdateRequest): Promise<CreditsState> {
  const { workspaceId, keyId, update } = request;
  const current = await store.lockCredits(workspaceId, keyId);
  if (!current) throw keyNotFound(keyId);
  if (update.operation !== 'set' && current.remaining === null) {
    throw badRequest(CREDITS_UPDATE_DETAILS.unlimited, [
      { location: 'body.operation', message: CREDITS_UPDATE_DETAILS.unlimited },
    ]);
  }
  const written = await store.writeCredits(workspaceId, keyId, {
    update,
    refillAt: dueRefill(current, update, request.now),
    ceiling: MAX_CREDITS,
  });
  if (!written) {
    throw badRequest(CREDITS_UPDATE_DETAILS.tooLarge, [
      { location: 'body.value', message: `would take the balance past ${MAX_CREDITS}` },
    ]);
  }
  return written;
}

/**
 * The boundary of the refill due before `update`, if one passed since the key's last refill. None
 * when the update makes the key unlimited: there is no balance left to refill.
 */
function dueRefill(credits: CreditsState, update: CreditsUpdate, now: number): number | undefined {
  const unlimited = update.operation === 'set' && (update.value === null || update.value === undefined);
  if (!credits.refill || unlimited) return undefined;
  const boundary = latestRefillBoundary(credits.refill, now);
  return credits.lastRefillAt === null || credits.lastRefillAt < boundary ? boundary : undefined;
}
