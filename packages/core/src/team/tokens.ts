import { randomBytes } from 'node:crypto';
import { hashKey } from '../keys.ts';

/** How long an invitation link stays valid. */
export const INVITATION_LIFETIME_MS = 72 * 60 * 60 * 1000;
/** How long a first-run setup link stays valid. */
export const SETUP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** How long a password-reset link an owner or admin issued stays valid. */
export const PASSWORD_RESET_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A person's session ends after this long without a request… */
export const PERSON_SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** …and this long after sign-in, however busy. */
export const PERSON_SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last use is written at most this often (its idle expiry moves on with it). */
export const PERSON_SESSION_TOUCH_INTERVAL_MS = 60 * 1000;

const TOKEN_BYTES = 32;

/**
 * A random token for a link or a session, and the hash that is stored in its place (SHA-256, as
 * root keys are): the token is shown or sent once and never kept.
 */
export function newSecretToken(): { token: string; tokenHash: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashKey(token) };
}
