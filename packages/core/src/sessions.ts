import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a dashboard sign-in lasts; the root key's own expiry or revocation ends it sooner. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

const TOKEN_BYTES = 32;
const SIGNED_SESSION = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

const signatureOf = (signingKey: Uint8Array, token: string) =>
  createHmac('sha256', signingKey).update(token).digest('base64url');

/**
 * Whose session a cookie carries: an operator who signed in with a root key, or a person signed in
 * to their account (docs/team-accounts.md). A person's cookie value starts with `p.`.
 */
export type SessionKind = 'rootKey' | 'person';

const PERSON_PREFIX = 'p.';

/** A fresh session token and the cookie value that carries it: the token and its HMAC signature. */
export function newSignedSession(
  signingKey: Uint8Array,
  kind: SessionKind = 'rootKey',
): { token: string; cookieValue: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const signed = `${token}.${signatureOf(signingKey, kind === 'person' ? PERSON_PREFIX + token : token)}`;
  return { token, cookieValue: kind === 'person' ? PERSON_PREFIX + signed : signed };
}

/**
 * The token inside a cookie value and whose session it is, or undefined when the value was not
 * signed by this service: forged or mangled cookies are turned away without a database read. The
 * signature covers the kind, so a root-key session cannot be presented as a person's.
 */
export function openSignedSession(
  signingKey: Uint8Array,
  cookieValue: string,
): { kind: SessionKind; token: string } | undefined {
  const kind: SessionKind = cookieValue.startsWith(PERSON_PREFIX) ? 'person' : 'rootKey';
  const parts = SIGNED_SESSION.exec(kind === 'person' ? cookieValue.slice(PERSON_PREFIX.length) : cookieValue);
  if (!parts) return undefined;
  const [, token = '', signature = ''] = parts;
  const expected = Buffer.from(signatureOf(signingKey, kind === 'person' ? PERSON_PREFIX + token : token));
  const presented = Buffer.from(signature);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? { kind, token } : undefined;
}

/**
 * What failed dashboard sign-ins are counted by: an IPv4 address, or an IPv6 address's /64 network,
 * since one subscriber's machines may take any address in theirs. Anything else counts as written.
 */
export function signInThrottleKey(address: string): string {
  return ipv6Network64(address) ?? address;
}

/** `a:b:c:d::/64` for an IPv6 address (its zone dropped), undefined for anything else. */
function ipv6Network64(address: string): string | undefined {
  const bare = (address.split('%')[0] ?? '').toLowerCase();
  if (!/^[0-9a-f:.]+$/.test(bare) || !bare.includes(':')) return undefined;
  const [head = '', tail, extra] = bare.split('::');
  if (extra !== undefined) return undefined;
  // An IPv4 tail (`::1.2.3.4`) stands for the last two groups.
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
