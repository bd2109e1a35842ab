import type { FreshnessCache, VerificationKey } from '@keyplane/core';
import type {
  CreditSpender,
  Invalidation,
  RatelimitRecorder,
  RootKeyRecord,
  RootKeyUsageTracker,
  VerificationRecorder,
} from '@keyplane/db';
import type { RateLimitEngine } from '@keyplane/ratelimit';

/** Long-lived, per-process collaborators shared by every request. */
export interface Services {
  /** Live keys by hash; `null` caches "no such key" so garbage keys do not reach Postgres. */
  keyCache: FreshnessCache<VerificationKey | null>;
  rootKeyCache: FreshnessCache<RootKeyRecord | null>;
  rateLimiter: RateLimitEngine;
  credits: CreditSpender;
  verifications: VerificationRecorder;
  ratelimitEvents: RatelimitRecorder;
  rootKeyUsage: RootKeyUsageTracker;
  /** Analytics queries one workspace may run per hour (429 query_quota_exceeded past it). */
  analyticsQueriesPerHour: number;
  /** Days of analytics kept (400 query_range_exceeds_retention for queries reaching further back); undefined: kept forever. */
  analyticsRetentionDays?: number;
  /** Signs dashboard session cookies; the same on every node (kept in the database). */
  sessionSigningKey: Uint8Array;
  /** A failure that must not fail the request it happened in (the change itself has committed). */
  reportError(message: string, error: unknown): void;
  now(): number;
  /**
   * Resolves once every node's invalidation listener has been handed what this node committed so
   * far (bounded: the one-second freshness window covers a lost message).
   */
  announcementsDelivered(): Promise<void>;
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

/**
 * After a change commits: forget it here at once, and answer only when the other nodes have been
 * told, so a revocation holds everywhere by the time the caller hears it succeeded.
 */
export async function settle(services: Services, change: Invalidation): Promise<void> {
  evict(services, change);
  await services.announcementsDelivered();
}
