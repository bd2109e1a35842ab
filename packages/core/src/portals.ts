import { randomBytes } from 'node:crypto';
import { hashKey } from './keys.ts';

// Customer key portals (docs/portal.md): what a session may do, and its code and token.

/** What a portal session may do; `keys:reroll`, `keys:update` and `keys:delete` need `keys:read`. */
export const PORTAL_SCOPES = [
  'keys:read',
  'keys:create',
  'keys:reroll',
  'keys:update',
  'keys:delete',
  'analytics:read',
] as const;

export type PortalScope = (typeof PORTAL_SCOPES)[number];

/**
 * What the root key opening a session must itself hold on the portal's API for each scope it hands
 * on: a session never lets a customer do what its opener could not.
 */
export const PORTAL_SCOPE_ACTIONS: Readonly<Record<PortalScope, readonly string[]>> = {
  'keys:read': ['read_key', 'read_api'],
  'keys:create': ['create_key'],
  'keys:reroll': ['create_key'],
  'keys:update': ['update_key'],
  'keys:delete': ['delete_key'],
  'analytics:read': ['read_analytics'],
};

/** Scopes that act on keys the customer must first see. */
const NEEDS_READ: readonly PortalScope[] = ['keys:reroll', 'keys:update', 'keys:delete'];

/** The scopes a session asked for lacks `keys:read` where one of them needs it: the first such, if any. */
export function scopeLackingRead(scopes: readonly PortalScope[]): PortalScope | undefined {
  if (scopes.includes('keys:read')) return undefined;
  return scopes.find((scope) => NEEDS_READ.includes(scope));
}

/** A session's code lives this long, and is good for one exchange. */
export const PORTAL_CODE_LIFETIME_MS = 15 * 60 * 1000;
/** A session's access token lives this long. */
export const PORTAL_ACCESS_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Requests one portal session may make per minute (docs/portal.md#limits). */
export const PORTAL_SESSION_REQUESTS_PER_MINUTE = 300;
export const PORTAL_SESSION_WINDOW_SECONDS = 60;

/** A session's code (`pst_…`) or access token (`pat_…`), and the SHA-256 stored in its place. */
export function newPortalSecret(kind: 'code' | 'accessToken'): { token: string; tokenHash: string } {
  const token = `${kind === 'code' ? 'pst' : 'pat'}_${randomBytes(32).toString('base64url')}`;
  return { token, tokenHash: hashKey(token) };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Where a customer may be sent back or a logo come from: `https://`, or `http://` on a loopback host for development. */
export function isSafePortalUrl(text: string, options: { allowLoopback: boolean }): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return options.allowLoopback && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}

/**
 * One bucket of a customer's usage as the reference's portal answers it: its start (unix ms), all
 * verifications, and those of each outcome it names (docs/contract.md, Portal).
 */
export interface PortalUsagePoint {
  time: number;
  total: number;
  valid: number;
  rateLimited: number;
  insufficientPermissions: number;
  forbidden: number;
  disabled: number;
  expired: number;
  usageExceeded: number;
}

/** The outcome codes a usage point counts on their own; any other (NOT_FOUND, …) is in `total` only. */
const POINT_FIELDS: ReadonlyMap<string, keyof Omit<PortalUsagePoint, 'time' | 'total'>> = new Map([
  ['VALID', 'valid'],
  ['RATE_LIMITED', 'rateLimited'],
  ['INSUFFICIENT_PERMISSIONS', 'insufficientPermissions'],
  ['FORBIDDEN', 'forbidden'],
  ['DISABLED', 'disabled'],
  ['EXPIRED', 'expired'],
  ['USAGE_EXCEEDED', 'usageExceeded'],
] as const);

/**
 * Counts per bucket and outcome as one point per bucket starting in [from, to), oldest first,
 * zero-filled as the reference's are, so a chart needs no gaps filled. Buckets are `bucketMs` wide
 * and aligned on the unix epoch (UTC), as the rollups store them.
 */
export function portalUsagePoints(
  counts: readonly { time: number; outcome: string; count: number }[],
  range: { from: number; to: number; bucketMs: number },
): PortalUsagePoint[] {
  const { from, to, bucketMs } = range;
  const points = new Map<number, PortalUsagePoint>();
  for (let time = Math.ceil(from / bucketMs) * bucketMs; time < to; time += bucketMs) {
    points.set(time, {
      time,
      total: 0,
      valid: 0,
      rateLimited: 0,
      insufficientPermissions: 0,
      forbidden: 0,
      disabled: 0,
      expired: 0,
      usageExceeded: 0,
    });
  }
  for (const { time, outcome, count } of counts) {
    const point = points.get(time);
    if (point === undefined) continue;
    point.total += count;
    const field = POINT_FIELDS.get(outcome);
    if (field !== undefined) point[field] += count;
  }
  return [...points.values()];
}
