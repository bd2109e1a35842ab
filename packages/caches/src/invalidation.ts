import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';

/**
 * What changed, so every node can evict what it cached: keys and root keys by hash, rate-limit
 * namespaces and overrides by id, name and identifier; or, with `workspaceId` alone, everything of a
 * workspace (role and permission changes reach many keys at once).
 */
export interface Invalidation {
  keyHashes?: string[];
  rootKeyHashes?: string[];
  /** Namespaces whose snapshot changed, cached by id and by name (a new name may be cached as none). */
  ratelimitNamespaces?: { id: string; name: string }[];
  /** Overrides of exactly these identifiers changed. */
  ratelimitOverrides?: { namespaceId: string; identifier: string }[];
  workspaceId?: string;
}

export const INVALIDATION_CHANNEL = 'keyplane_invalidation';
/** Names the listeners' connections, so a node can count how many nodes must acknowledge a ping. */
export const INVALIDATION_LISTENER_NAME = 'keyplane-invalidations';
/** NOTIFY payloads must stay under 8000 bytes; larger changes widen to the whole workspace. */
const MAX_PAYLOAD_BYTES = 7000;

/**
 * Announces a change through Postgres NOTIFY. Inside a transaction it is delivered on commit, so
 * no node hears of a change that was rolled back. Every process sharing the database hears it:
 * other API nodes, and the server when the CLI revokes a root key.
 */
async function notifyInvalidation(em: EntityManager, change: Invalidation & { workspaceId: string }) {
  let payload = JSON.stringify(change);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) payload = JSON.stringify({ workspaceId: change.workspaceId });
  // Raw: NOTIFY writes no table (and caches sits below db, which types the tables).
  await sql`select pg_notify(${INVALIDATION_CHANNEL}, ${payload})`.execute(em.getKysely());
}

/**
 * What one request (or CLI command) changed of the state nodes cache. A write that changes such state
 * can announce it only through here, inside its transaction; whoever made the log settles it before
 * answering (the procedures' middleware, the CLI), so no call answers before every node has
 * forgotten what it changed.
 */
export interface ChangeLog {
  /** Tells every node (NOTIFY, delivered when `tx` commits) and keeps the change for settling. */
  announce(tx: EntityManager, change: Invalidation & { workspaceId: string }): Promise<void>;
  /** The changes announced so far, in order. */
  readonly changes: readonly Invalidation[];
}

export function createChangeLog(): ChangeLog {
  const changes: Invalidation[] = [];
  return {
    changes,
    async announce(tx, change) {
      await notifyInvalidation(tx, change);
      changes.push(change);
    },
  };
}
