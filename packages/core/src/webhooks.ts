import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

// In a file of their own, so that the dashboard can offer them (packages/core/src/rules.ts).
export {
  DEFAULT_CREDITS_LOW_THRESHOLD,
  DEFAULT_EXPIRING_NOTICE_MS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './webhookEndpoints.ts';

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * When to try a delivery again after its `attempt`-th attempt failed (from 1), or null when it has
 * had its last: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about 28 hours in all (docs/webhooks.md),
 * each ±20% so that the retries of one outage do not arrive together.
 */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export function webhookRetryDelay(attempt: number, delays: readonly number[], random = Math.random): number | null {
  const delay = delays[attempt - 1];
  if (delay === undefined) return null;
  return Math.round(delay * (0.8 + 0.4 * random()));
}

/**
 * Endpoints one workspace may have when the server sets no other bound
 * (LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE, docs/contract.md#limits): each event is written once per
 * matching endpoint, in the transaction of the change, so the bound caps the fan-out of one change.
 */
export const DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE = 100;

/** An endpoint failing without a success for this long is disabled, and says why. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

// Where a webhook must not go unless the operator allows it: the host itself, its private
// networks and the cloud metadata services reachable through link-local addresses.
const PRIVATE_RANGES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_RANGES.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE_RANGES.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE_RANGES.check(mapped, 'ipv4');
  return PRIVATE_RANGES.check(address, 'ipv6');
}

/**
 * Why a webhook URL cannot be a target, or null when it can: http(s) only, no credentials in it,
 * and no loopback, private or link-local host named directly unless `allowPrivate`. A name that
 * resolves to such an address is refused when the delivery connects (the address is checked then,
 * so DNS cannot change it between the check and the connection).
 */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '`url` must be an absolute URL such as https://example.com/webhooks';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return '`url` must use https or http';
  if (parsed.username || parsed.password) return '`url` must not carry a user name or password';
  if (allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host))) {
    return '`url` points at a loopback, private or link-local address; webhooks go only to public addresses unless the server sets WEBHOOKS_ALLOW_PRIVATE=true';
  }
  return null;
}
