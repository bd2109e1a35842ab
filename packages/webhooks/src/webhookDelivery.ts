import { WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelay } from '@keyplane/core';
import { createOrm, type EntityManager } from '@keyplane/db';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  enqueueDueExpiryEvents,
  hasDueDeliveries,
  recordDeliveryAttempt,
} from './deliveryQueue.ts';
import { type ResolveHost, sendWebhook } from './webhookSend.ts';

/**
 * Deliveries a node sends at once: each worker holds one delivery's transaction (and connection, of
 * the worker's own pool) while it waits for the receiver, so one slow receiver holds up one worker.
 */
export const WEBHOOK_WORKERS = 4;
/**
 * Deliveries one workspace may have under way on a node at once: a workspace whose receivers hang
 * or crawl holds at most this many of the node's workers, and the others serve everyone else.
 */
export const WEBHOOK_WORKSPACE_IN_FLIGHT = 2;
/**
 * How many of each workspace's oldest due deliveries a claim considers: those under way on any node
 * count among them, so a workspace has about this many under way across all nodes at most.
 */
const CLAIM_CANDIDATES_PER_WORKSPACE = WEBHOOK_WORKERS;
/** How often a node whose workers are idle looks for due deliveries, and for due expiry events. */
const POLL_MS = 500;
const EXPIRY_SCAN_MS = 10_000;

export interface WebhookDeliveryOptions {
  /** Let deliveries connect to loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The waits between attempts; omitted: WEBHOOK_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** How target names resolve; omitted: the system resolver. */
  resolve?: ResolveHost;
  onError?: (error: unknown) => void;
}

export interface WebhookDelivery {
  /** Stops claiming, and waits for the deliveries under way. */
  close(): Promise<void>;
}

/**
 * Delivers the outbox (docs/webhooks.md): every node runs this. Each worker claims one due
 * delivery with SKIP LOCKED in a transaction, workspaces taking turns, sends it, and records the
 * attempt (with the next one's time, backoff and jitter) before it commits; a node killed
 * mid-delivery rolls back and another node sends it at once. Idle workers wait for one poll to find
 * work. It also writes the expiry events that have come due.
 */
export async function startWebhookDelivery(
  databaseUrl: string,
  options: WebhookDeliveryOptions,
): Promise<WebhookDelivery> {
  const delays = options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  const orm = await createOrm(databaseUrl, { poolSize: WEBHOOK_WORKERS + 1 });
  let stopped = false;
  let waiting: (() => void)[] = [];
  const wakeWorkers = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const workAppears = () => new Promise<void>((resolve) => waiting.push(resolve));

  /** Sends one delivery; what to record of it. */
  async function attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const started = performance.now();
    const result = await sendWebhook(delivery, { allowPrivate: options.allowPrivate, resolve: options.resolve });
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const retryIn = succeeded ? null : webhookRetryDelay(delivery.attempt, delays);
    return {
      ...result,
      durationMs: performance.now() - started,
      succeeded,
      retryAt: retryIn === null ? null : Date.now() + retryIn,
      disableAfterMs: WEBHOOK_DISABLE_AFTER_MS,
    };
  }

  /** Deliveries under way on this node, by workspace. */
  const inFlight = new Map<string, number>();
  let claiming: Promise<unknown> = Promise.resolve();

  /**
   * Claims the next delivery, workspaces taking turns, passing over those with
   * WEBHOOK_WORKSPACE_IN_FLIGHT under way here; one claim at a time on a node, so that two workers
   * cannot both take a workspace's last place.
   */
  function claimNext(tx: EntityManager): Promise<ClaimedDelivery | undefined> {
    const claim = claiming.then(async () => {
      const busy = [...inFlight].filter(([, count]) => count >= WEBHOOK_WORKSPACE_IN_FLIGHT).map(([id]) => id);
      const [delivery] = await claimDueDeliveries(tx, {
        count: 1,
        perWorkspace: CLAIM_CANDIDATES_PER_WORKSPACE,
        skipWorkspaces: busy,
      });
      if (delivery) inFlight.set(delivery.workspaceId, (inFlight.get(delivery.workspaceId) ?? 0) + 1);
      return delivery;
    });
    claiming = claim.catch(() => undefined);
    return claim;
  }

  function release(workspaceId: string): void {
    const left = (inFlight.get(workspaceId) ?? 1) - 1;
    if (left > 0) inFlight.set(workspaceId, left);
    else inFlight.delete(workspaceId);
  }

  /** Claims, sends and records one delivery in one transaction; false when none was due. */
  const deliverOne = () =>
    orm.em.fork().transactional(async (tx) => {
      const delivery = await claimNext(tx);
      if (!delivery) return false;
      try {
        const { refused } = await recordDeliveryAttempt(tx, delivery, await attempt(delivery));
        if (refused !== undefined) options.onError?.(refused);
        return true;
      } finally {
        release(delivery.workspaceId);
      }
    });

  async function work(): Promise<void> {
    while (!stopped) {
      const delivered = await deliverOne().catch((error: unknown) => {
        options.onError?.(error);
        return false;
      });
      if (!delivered && !stopped) await workAppears();
    }
  }

  async function poll(): Promise<void> {
    if (waiting.length === 0) return;
    try {
      if (await hasDueDeliveries(orm.em.fork())) wakeWorkers();
    } catch (error) {
      options.onError?.(error);
    }
  }

  async function scanExpiries(): Promise<void> {
    try {
      await enqueueDueExpiryEvents(orm.em.fork());
    } catch (error) {
      options.onError?.(error);
    }
  }

  const workers = Array.from({ length: WEBHOOK_WORKERS }, work);
  const pollTimer = setInterval(() => void poll(), POLL_MS);
  const expiryTimer = setInterval(() => void scanExpiries(), EXPIRY_SCAN_MS);
  void scanExpiries();
  return {
    async close() {
      stopped = true;
      clearInterval(pollTimer);
      clearInterval(expiryTimer);
      wakeWorkers();
      await Promise.all(workers);
      await orm.close();
    },
  };
}
