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
