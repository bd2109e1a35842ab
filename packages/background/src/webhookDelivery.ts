import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_RETRY_DELAYS_MS, webhookRetryDelay } from '@keyplane/core';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  createOrm,
  enqueueDueExpiryEvents,
  hasDueDeliveries,
  recordDeliveryAttempt,
} from '@keyplane/db';
import { Webhook } from 'standardwebhooks';

/** A receiver gets this long to answer; then the attempt fails and is retried. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer the delivery log keeps. */
export const WEBHOOK_RESPONSE_LOG_BYTES = 1024;
/**
 * Deliveries a node sends at once: each worker holds one delivery's transaction (and connection, of
 * the worker's own pool) while it waits for the receiver, so one slow receiver holds up one worker.
 */
export const WEBHOOK_WORKERS = 4;
/** How often a node whose workers are idle looks for due deliveries, and for due expiry events. */
const POLL_MS = 500;
const EXPIRY_SCAN_MS = 10_000;

export interface WebhookDeliveryOptions {
  /** Let deliveries connect to loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The waits between attempts; omitted: WEBHOOK_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  onError?: (error: unknown) => void;
}

export interface WebhookDelivery {
  /** Stops claiming, and waits for the deliveries under way. */
  close(): Promise<void>;
}

interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/** Resolves names as usual, then refuses the connection when any address is not public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) {
      const denied = Object.assign(new Error(`${hostname} resolves to ${refused.address}, a non-public address`), {
        code: 'EWEBHOOKPRIVATE',
      });
      return callback(denied, '', 4);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first
      ? callback(null, first.address, first.family)
      : callback(new Error(`${hostname} has no address`), '', 4);
  });
};

/**
 * One signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), no
 * redirects followed, WEBHOOK_TIMEOUT_MS for the whole exchange, the answer's start kept.
 */
function send(delivery: ClaimedDelivery, allowPrivate: boolean): Promise<SendResult> {
  const url = new URL(delivery.url);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) {
    return Promise.resolve({ statusCode: null, error: `${literal} is not a public address`, responseBody: null });
  }
  const timestamp = new Date();
  const signature = new Webhook(delivery.secret).sign(delivery.eventId, timestamp, delivery.payload);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'Keyplane-Webhooks/1',
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        ...(allowPrivate ? {} : { lookup: publicOnlyLookup }),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < WEBHOOK_RESPONSE_LOG_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        const done = () =>
          finish({
            statusCode: response.statusCode ?? null,
            error: null,
            responseBody: Buffer.concat(chunks).subarray(0, WEBHOOK_RESPONSE_LOG_BYTES).toString('utf8'),
          });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const deadline = setTimeout(
      () => finish({ statusCode: null, error: `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`, responseBody: null }),
      WEBHOOK_TIMEOUT_MS,
    );
    request.on('error', (error) => finish({ statusCode: null, error: error.message, responseBody: null }));
    request.end(delivery.payload);
  });
}

/**
 * Delivers the outbox (docs/webhooks.md): every node runs this. Each worker claims one due
 * delivery with SKIP LOCKED in a transaction, sends it, and records the attempt (with the next
 * one's time, backoff and jitter) before it commits; a node killed mid-delivery rolls back and
 * another node sends it at once. Idle workers wait for one poll to find work. It also writes the
 * expiry events that have come due.
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
    const result = await send(delivery, options.allowPrivate);
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

  /** Claims, sends and records one delivery in one transaction; false when none was due. */
  const deliverOne = () =>
    orm.em.fork().transactional(async (tx) => {
      const [delivery] = await claimDueDeliveries(tx, 1);
      if (!delivery) return false;
      await recordDeliveryAttempt(tx, delivery, await attempt(delivery));
      return true;
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
