import type { FreshnessCache, VerificationKey } from '@keyplane/core';
import type { CreditSpender, Invalidation, RootKeyRecord, VerificationRecorder } from '@keyplane/db';
import type { RateLimitEngine } from '@keyplane/ratelimit';

/** Long-lived, per-process collaborators shared by every request. */
export interface Services {
  /** Live keys by hash; `null` caches "no such key" so garbage keys do not reach Postgres. */
  keyCache: FreshnessCache<VerificationKey | null>;
  rootKeyCache: FreshnessCache<RootKeyRecord | null>;
  rateLimiter: RateLimitEngine;
  credits: CreditSpender;
  verifications: VerificationRecorder;
  now(): number;
}

/** Forgets what a change made stale. Called for local changes at once, and for every NOTIFY heard. */
export function evict(services: Pick<Services, 'keyCache' | 'rootKeyCache'>, change: Invalidation): void {
  for (const hash of change.keyHashes ?? []) services.keyCache.delete(hash);
  for (const hash of change.rootKeyHashes ?? []) services.rootKeyCache.delete(hash);
  if (change.workspaceId && !change.keyHashes && !change.rootKeyHashes) {
    const { workspaceId } = change;
    services.keyCache.deleteWhere((key) => key === null || key.workspaceId === workspaceId);
    services.rootKeyCache.deleteWhere((rootKey) => rootKey === null || rootKey.workspaceId === workspaceId);
  }
}
