import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import pg from 'pg';
import { INVALIDATION_CHANNEL, INVALIDATION_LISTENER_NAME, type Invalidation } from './invalidation.ts';

// The bus over which nodes hear what others changed (announced through a ChangeLog, invalidation.ts),
// and how a node learns that every other node has heard it.

/**
 * Sends a marker after everything this process has committed and answers how many listeners (nodes,
 * this one included) will acknowledge it. Postgres delivers notifications to each listener in commit
 * order, so a listener that acknowledges the marker has handled every earlier announcement.
 */
async function pingInvalidations(em: EntityManager, nonce: string): Promise<number> {
  // Raw: PostgreSQL's own view of its connections, and NOTIFY; no table the entities define.
  const {
    rows: [listening],
  } = await sql<{ listeners: number }>`
      select count(*)::int as listeners from pg_stat_activity
      where datname = current_database() and application_name = ${INVALIDATION_LISTENER_NAME}`.execute(em.getKysely());
  await sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify({ ping: nonce })})`.execute(em.getKysely());
  return listening?.listeners ?? 0;
}

function acknowledge(client: pg.Client, nonce: string) {
  // On the listener's own connection, which the ORM does not manage.
  return client.query('select pg_notify($1, $2)', [INVALIDATION_CHANNEL, JSON.stringify({ ack: nonce })]);
}

export interface CatchUp {
  /** Listeners on the database when the ping was sent, this one included. */
  listeners: number;
  /** How many acknowledged it in time. */
  acknowledged: number;
}

export interface InvalidationListener {
  /**
   * Resolves once every node listening on the database has acknowledged a ping sent now, so has
   * handled every announcement committed before this call; or after `timeoutMs` regardless.
   */
  everyNodeCaughtUp(em: EntityManager, timeoutMs: number): Promise<CatchUp>;
  close(): Promise<void>;
}

/** Pings of this process waiting for their acknowledgements, by nonce. */
function pendingPings() {
  const waiting = new Map<string, { expected: number; heard: number; done: () => void }>();
  const settleIfComplete = (nonce: string) => {
    const ping = waiting.get(nonce);
    if (ping && ping.heard >= ping.expected) ping.done();
  };
  return {
    async ping(em: EntityManager, timeoutMs: number): Promise<CatchUp> {
      const nonce = randomUUID();
      const entry = { expected: Number.POSITIVE_INFINITY, heard: 0, done: () => {} };
      const heard = new Promise<void>((resolve) => {
        const timer = setTimeout(() => entry.done(), timeoutMs);
        entry.done = () => {
          clearTimeout(timer);
          waiting.delete(nonce);
          resolve();
        };
      });
      waiting.set(nonce, entry);
      try {
        entry.expected = await pingInvalidations(em, nonce);
      } catch (error) {
        entry.done();
        throw error;
      }
      settleIfComplete(nonce);
      await heard;
      return { listeners: entry.expected, acknowledged: Math.min(entry.heard, entry.expected) };
    },
    acknowledge(nonce: string): void {
      const ping = waiting.get(nonce);
      if (ping) ping.heard += 1;
      settleIfComplete(nonce);
    },
  };
}

/**
 * Listens on a dedicated connection. When the connection drops, `onReset` is called (the caller
 * forgets everything, having possibly missed messages) and the listener reconnects.
 */
export async function listenForInvalidations(
  databaseUrl: string,
  handlers: {
    onChange: (change: Invalidation) => void;
    onReset: () => void;
    onError?: (error: Error) => void;
    /** Awaited before each acknowledgement: tests hold a node's acknowledgements back with it. */
    beforeAcknowledging?: () => Promise<void>;
  },
): Promise<InvalidationListener> {
  let client: pg.Client | undefined;
  let closed = false;
  const pings = pendingPings();
  const connect = async () => {
    const next = new pg.Client({
      connectionString: databaseUrl,
      application_name: INVALIDATION_LISTENER_NAME,
      // And the other way round: notice a vanished database server, and reconnect.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    /** The acknowledgements sent on this connection, in order. */
    let acknowledged = Promise.resolve();
    next.on('notification', (message) => {
      if (message.channel !== INVALIDATION_CHANNEL || !message.payload) return;
      let parsed: Invalidation & { ping?: string; ack?: string };
      try {
        parsed = JSON.parse(message.payload);
      } catch {
        handlers.onReset();
        return;
      }
      // Acknowledgements reach every listener; only the pinging one is waiting for them.
      if (parsed.ack) pings.acknowledge(parsed.ack);
      // Every ping is acknowledged, the sender's own included, after what came before it was handled;
      // one at a time, as a connection runs one query at a time (pg would queue them, deprecated).
      else if (parsed.ping) {
        const nonce = parsed.ping;
        acknowledged = acknowledged
          .then(() => handlers.beforeAcknowledging?.())
          .then(() => acknowledge(next, nonce))
          .then(
            () => {},
            (error: Error) => handlers.onError?.(error),
          );
      } else handlers.onChange(parsed);
    });
    next.on('error', (error) => {
      handlers.onError?.(error);
      handlers.onReset();
      void next.end().catch(() => {});
      if (!closed) setTimeout(() => void connect().catch(() => {}), 500);
    });
    await next.connect();
    // Other nodes wait for this listener's acknowledgements while Postgres counts it as connected: if
    // this machine vanishes without closing the connection, let its backend notice within ~25 s.
    await next.query('set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3');
    await next.query(`listen ${INVALIDATION_CHANNEL}`);
    client = next;
  };
  await connect();
  return {
    everyNodeCaughtUp: (em, timeoutMs) => pings.ping(em, timeoutMs),
    async close() {
      closed = true;
      await client?.end();
    },
  };
}
