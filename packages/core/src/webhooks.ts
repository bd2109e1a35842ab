import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PermissionTuple } from './permissions.ts';

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

/** How much of a receiver's answer the delivery log keeps, in bytes. */
export const WEBHOOK_RESPONSE_LOG_BYTES = 1024;

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * What the delivery log keeps of a receiver's answer: its first WEBHOOK_RESPONSE_LOG_BYTES bytes as
 * text that can always be stored and shown, whatever the receiver sent. Bytes that are not UTF-8 (a
 * character cut at the end included) and U+0000, which a PostgreSQL text cannot hold, become U+FFFD.
 */
export function webhookResponseExcerpt(bytes: Uint8Array): string {
  return utf8.decode(bytes.subarray(0, WEBHOOK_RESPONSE_LOG_BYTES)).replaceAll('\u0000', '\uFFFD');
}

/**
 * Who may see an event's payload in the delivery log (docs/webhooks.md#who-reads-the-delivery-log):
 * reading an endpoint shows that its events were sent, but what they carry only to a reader who
 * could read what the event is about. `everyReader` for what reveals nothing beyond the endpoint,
 * a permission for the rest, `nobody` for an event this rule does not know.
 */
export function webhookPayloadReader(
  type: string,
  data: Record<string, unknown>,
): 'everyReader' | 'nobody' | PermissionTuple {
  const id = (field: string) => (typeof data[field] === 'string' ? data[field] : undefined);
  if (type === 'webhook.test') return 'everyReader';
  if (type.startsWith('key.')) {
    const apiId = id('apiId');
    return apiId === undefined ? 'nobody' : { resourceType: 'api', resourceId: apiId, action: 'read_key' };
  }
  if (type.startsWith('rootkey.')) return { resourceType: 'workspace', resourceId: '*', action: 'read_root_keys' };
  if (type.startsWith('ratelimit.override.')) {
    const namespaceId = id('namespaceId');
    return namespaceId === undefined
      ? 'nobody'
      : { resourceType: 'ratelimit', resourceId: namespaceId, action: 'read_override' };
  }
  return 'nobody';
}

/** An endpoint failing without a success for this long is disabled, and says why. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

// Where a webhook may go unless the operator allows more (docs/webhooks.md#safety): only addresses
// ipaddr.js classifies as ordinary unicast, and for IPv6 only inside global unicast 2000::/3. So
// loopback, private, link-local, carrier-grade NAT, multicast, reserved and documentation ranges are
// refused, and so is every IPv6 range that embeds an IPv4 address (the IPv4 address inside could be
// any of those): IPv4-mapped, IPv4-compatible (::/96, outside 2000::/3), SIIT (RFC 6145), NAT64
// (RFC 6052, RFC 8215), 6to4 and Teredo.
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an IP address (IPv4 in any form ipaddr.js reads, or IPv6) is anything but an ordinary
 * public unicast address; anything that is not an address at all counts as not public.
 */
export function isPrivateAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const ipv6 = parsed as ipaddr.IPv6;
  return !ipv6.match(GLOBAL_UNICAST_IPV6) || ipv6.range() !== 'unicast';
}

/** `localhost` and the names under it resolve to the host itself (RFC 6761), with or without the root's dot. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
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
  if (isLocalhostName(host) || (isIP(host) !== 0 && isPrivateAddress(host))) {
    return '`url` points at a loopback, private or link-local address; webhooks go only to public addresses unless the server sets WEBHOOKS_ALLOW_PRIVATE=true';
  }
  return null;
}
