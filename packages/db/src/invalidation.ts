import pg from 'pg';
import { type EntityManager, rows, sql } from './sql.ts';

/**
 * What changed, so every node can evict what it cached: keys and root keys by hash, or every key
 * of a workspace (role and permission changes reach many keys at once).
 */
export interface Invalidation {
  keyHashes?: string[];
  rootKeyHashes?: string[];
  workspaceId?: string;
}

export const INVALIDATION_CHANNEL = 'keyplane_invalidation';
/** NOTIFY payloads must stay under 8000 bytes; larger changes widen to the whole workspace. */
const MAX_PAYLOAD_BYTES = 7000;

/**
 * Announces a change through Postgres NOTIFY. Inside a transaction it is delivered on commit, so
 * no node hears of a change that was rolled back. Every process sharing the database hears it:
 * other API nodes, and the server when the CLI revokes a root key.
 */
export async function notifyInvalidation(em: EntityManager, change: Invalidation & { workspaceId: string }) {
  let payload = JSON.stringify(change);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) payload = JSON.stringify({ workspaceId: change.workspaceId });
  await rows(em, sql`select pg_notify(${INVALIDATION_CHANNEL}, ${payload})`);
}

/**
 * Sends a marker after everything this process has committed. Postgres delivers notifications to
 * each listener in commit order, so when a listener hears the marker it has heard every earlier
 * announcement too.
 */
export async function pingInvalidations(em: EntityManager, nonce: string): Promise<void> {
  await rows(em, sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify({ ping: nonce })})`);
}

export interface InvalidationListener {
  close(): Promise<void>;
}

/**
 * Listens on a dedicated connection. When the connection drops, `onReset` is called (the caller
 * forgets everything, having possibly missed messages) and the listener reconnects.
 */
export async function listenForInvalidations(
  databaseUrl: string,
  handlers: {
    onChange: (change: Invalidation) => void;
    /** A ping sent by `pingInvalidations` arrived: every announcement committed before it has too. */
    onPing: (nonce: string) => void;
    onReset: () => void;
    onError?: (error: Error) => void;
  },
): Promise<InvalidationListener> {
  let client: pg.Client | undefined;
  let closed = false;
  const connect = async () => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.channel !== INVALIDATION_CHANNEL || !message.payload) return;
      try {
        const parsed = JSON.parse(message.payload) as Invalidation & { ping?: string };
        if (parsed.ping) handlers.onPing(parsed.ping);
        else handlers.onChange(parsed);
      } catch {
        handlers.onReset();
      }
    });
    next.on('error', (error) => {
      handlers.onError?.(error);
      handlers.onReset();
      void next.end().catch(() => {});
      if (!closed) setTimeout(() => void connect().catch(() => {}), 500);
    });
    await next.connect();
    await next.query(`listen ${INVALIDATION_CHANNEL}`);
    client = next;
  };
  await connect();
  return {
    async close() {
      closed = true;
      await client?.end();
    },
  };
}
