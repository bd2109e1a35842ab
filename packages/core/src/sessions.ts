import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a dashboard sign-in lasts; the root key's own expiry or revocation ends it sooner. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

const TOKEN_BYTES = 32;
const SIGNED_SESSION = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

const signatureOf = (signingKey: Uint8Array, token: string) =>
  createHmac('sha256', signingKey).update(token).digest('base64url');

/** A fresh session token and the cookie value that carries it: the token and its HMAC signature. */
export function newSignedSession(signingKey: Uint8Array): { token: string; cookieValue: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, cookieValue: `${token}.${signatureOf(signingKey, token)}` };
}

/**
 * The token inside a cookie value, or undefined when the value was not signed by this service:
 * forged or mangled cookies are turned away without a database read.
 */
export function openSignedSession(signingKey: Uint8Array, cookieValue: string): string | undefined {
  const parts = SIGNED_SESSION.exec(cookieValue);
  if (!parts) return undefined;
  const [, token = '', signature = ''] = parts;
  const expected = Buffer.from(signatureOf(signingKey, token));
  const presented = Buffer.from(signature);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? token : undefined;
}
