import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalhostName, isPrivateAddress, WEBHOOK_RESPONSE_LOG_BYTES, webhookResponseExcerpt } from '@keyplane/core';
import { Webhook } from 'standardwebhooks';
import type { ClaimedDelivery } from './deliveryQueue.ts';

/** A receiver gets this long, from the first DNS query to its answer's status, before the attempt fails. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/**
 * How long the answer's body may take once its status came (and WEBHOOK_TIMEOUT_MS is not over):
 * only its first WEBHOOK_RESPONSE_LOG_BYTES are kept, so a body that trickles or never ends does
 * not hold a worker longer.
 */
export const WEBHOOK_BODY_READ_MS = 1_000;

/**
 * What an attempt records when the target is refused: the same whatever the name resolved to, so
 * that the delivery log does not tell a workspace what the server's DNS answers.
 */
export const TARGET_NOT_ALLOWED = 'the target address is not allowed: webhooks go only to public addresses';

/** Every address a name resolves to (the system resolver, as a connection would use it). */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface SendOptions {
  /** Let deliveries connect to loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Omitted: the system resolver. Tests hand in answers no DNS server here could give. */
  resolve?: ResolveHost;
}

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/**
 * The addresses the delivery may connect to, or why none: an address named in the URL as it is,
 * a name as it resolves once; unless `allowPrivate`, any non-public address among them (or a
 * `localhost` name) refuses the whole target (docs/webhooks.md#safety).
 */
async function resolveTarget(
  hostname: string,
  options: SendOptions,
): Promise<{ addresses: LookupAddress[] } | { refused: string }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  if (family !== 0) {
    return !options.allowPrivate && isPrivateAddress(host)
      ? { refused: TARGET_NOT_ALLOWED }
      : { addresses: [{ address: host, family }] };
  }
  if (!options.allowPrivate && isLocalhostName(host)) return { refused: TARGET_NOT_ALLOWED };
  let addresses: LookupAddress[];
  try {
    addresses = await (options.resolve ?? systemResolve)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return { refused: 'the target host name could not be resolved' };
  if (!options.allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))) {
    return { refused: TARGET_NOT_ALLOWED };
  }
  return { addresses };
}

/**
 * Answers the connection's lookup with the addresses already resolved and checked, without asking
 * DNS again: the connection goes to a checked address even if the name's answer changes meanwhile.
 */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) return callback(null, addresses);
    const chosen = addresses.find(({ family }) => !options.family || family === options.family) ?? addresses[0];
    if (!chosen) return callback(new Error('no address'), '', 4);
    return callback(null, chosen.address, chosen.family);
  };
}

/** Why a request failed, in the service's words: never the addresses or text a message of the system may carry. */
function failureReason(error: NodeJS.ErrnoException): string {
  const code = typeof error.code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(error.code) ? error.code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection closed before an answer';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'target unreachable';
    case undefined:
      return 'request failed';
    default:
      if (code.startsWith('HPE_')) return `the answer is not valid HTTP (${code})`;
      return `request failed (${code})`;
  }
}

/**
 * One signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) to the
 * checked address of the endpoint, no redirects followed. The status counts; of the body, at most
 * WEBHOOK_RESPONSE_LOG_BYTES are read, as storable text (webhookResponseExcerpt). Never rejects.
 */
export async function sendWebhook(delivery: ClaimedDelivery, options: SendOptions): Promise<SendResult> {
  const deadline = Date.now() + WEBHOOK_TIMEOUT_MS;
  const noAnswer = { statusCode: null, error: `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`, responseBody: null };
  const url = new URL(delivery.url);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), WEBHOOK_TIMEOUT_MS);
  });
  const target = await Promise.race([resolveTarget(url.hostname, options), expired]);
  clearTimeout(timer);
  if (target === 'expired') return noAnswer;
  if ('refused' in target) return { statusCode: null, error: target.refused, responseBody: null };

  const timestamp = new Date();
  const signature = new Webhook(delivery.secret).sign(delivery.eventId, timestamp, delivery.payload);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (result?: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(
        result ??
          (statusCode === null
            ? noAnswer
            : { statusCode, error: null, responseBody: webhookResponseExcerpt(Buffer.concat(chunks)) }),
      );
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
        lookup: pinnedLookup(target.addresses),
        agent: false,
      },
      (response) => {
        statusCode = response.statusCode ?? null;
        clearTimeout(timer);
        timer = setTimeout(() => finish(), Math.min(WEBHOOK_BODY_READ_MS, deadline - Date.now()));
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          kept += chunk.length;
          if (kept >= WEBHOOK_RESPONSE_LOG_BYTES) finish();
        });
        response.on('end', () => finish());
        response.on('error', () => finish());
        response.on('close', () => finish());
      },
    );
    timer = setTimeout(() => finish(), Math.max(0, deadline - Date.now()));
    request.on('error', (error) =>
      finish(statusCode === null ? { ...noAnswer, error: failureReason(error) } : undefined),
    );
    request.end(delivery.payload);
  });
}
