import type { FreshnessCache } from '@keyplane/core';
import type { Invalidation } from './invalidation.ts';

/** What a cached entry must tell for a workspace-wide eviction: its workspace (`null` caches "none"). */
type OfWorkspace = { workspaceId: string } | null;

/**
 * What each node caches for its hot paths (docs/architecture.md, Caches): keys and root keys by
 * hash, rate-limit namespaces by the id or name a request named them by, exact overrides by
 * namespace and identifier. `null` caches "none", so garbage keys and names do not reach PostgreSQL.
 */
export interface NodeCaches<
  TKey extends OfWorkspace,
  TRootKey extends OfWorkspace,
  TNamespace extends OfWorkspace,
  TOverride,
> {
  keyCache: FreshnessCache<TKey>;
  rootKeyCache: FreshnessCache<TRootKey>;
  /** By `namespaceCacheKey`. */
  namespaceCache: FreshnessCache<TNamespace>;
  /** By `overrideCacheKey`. */
  overrideCache: FreshnessCache<TOverride>;
}

// biome-ignore lint/suspicious/noExplicitAny: any cached value type will do for forgetting entries.
type AnyNodeCaches = NodeCaches<any, any, any, unknown>;

export const namespaceCacheKey = (workspaceId: string, namespace: string) => `${workspaceId}:${namespace}`;

export const overrideCacheKey = (namespaceId: string, identifier: string) => `${namespaceId}:${identifier}`;

/** Forgets everything cached: after the invalidation listener lost its connection, changes may have gone unheard. */
export function clearCaches(caches: AnyNodeCaches): void {
  caches.keyCache.clear();
  caches.rootKeyCache.clear();
  caches.namespaceCache.clear();
  caches.overrideCache.clear();
}

/** Forgets what a change made stale. Called for local changes at once, and for every NOTIFY heard. */
export function evict(caches: AnyNodeCaches, change: Invalidation): void {
  const { workspaceId, keyHashes, rootKeyHashes, ratelimitNamespaces, ratelimitOverrides } = change;
  for (const hash of keyHashes ?? []) caches.keyCache.delete(hash);
  for (const hash of rootKeyHashes ?? []) caches.rootKeyCache.delete(hash);
  for (const { id, name } of ratelimitNamespaces ?? []) {
    if (workspaceId === undefined) continue;
    caches.namespaceCache.delete(namespaceCacheKey(workspaceId, id));
    caches.namespaceCache.delete(namespaceCacheKey(workspaceId, name));
  }
  for (const { namespaceId, identifier } of ratelimitOverrides ?? []) {
    caches.overrideCache.delete(overrideCacheKey(namespaceId, identifier));
  }
  // The workspace alone: everything of it (a change reaching many keys, or one too large to name).
  if (workspaceId && !keyHashes && !rootKeyHashes && !ratelimitNamespaces && !ratelimitOverrides) {
    const ofWorkspace = (entry: OfWorkspace) => entry === null || entry.workspaceId === workspaceId;
    caches.keyCache.deleteWhere(ofWorkspace);
    caches.rootKeyCache.deleteWhere(ofWorkspace);
    caches.namespaceCache.deleteWhere(ofWorkspace);
    caches.overrideCache.clear();
  }
}

/**
 * After changes commit: forget them here at once, and answer only when the other nodes have been
 * told, so a revocation holds everywhere by the time the caller hears it succeeded. Called for what
 * a call's ChangeLog recorded, by whoever made the log (the procedures' middleware, the CLI).
 */
export async function settle(
  caches: AnyNodeCaches,
  changes: readonly Invalidation[],
  announcementsDelivered: () => Promise<void>,
): Promise<void> {
  for (const change of changes) evict(caches, change);
  await announcementsDelivered();
}
