import { hashKey } from '../keys.ts';
import { newSecretToken, SETUP_LINK_LIFETIME_MS } from './tokens.ts';

/**
 * What failed sign-ins to one email are counted by: its SHA-256, lower-cased, so an email with no
 * account counts as one with an account does and no email reaches the counters' store in clear.
 */
export function accountSignInThrottleKey(email: string): string {
  return `account:${hashKey(email.trim().toLowerCase())}`;
}

/** A membership as choosing where a sign-in lands sees it. */
export interface SignInMembership {
  workspaceId: string;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms; null: never signed in there. */
  lastSignInAt: number | null;
}

/**
 * The workspace a sign-in lands in: the one the person signed in to last, else their oldest
 * membership; undefined when they belong to none.
 */
export function signInWorkspace(memberships: readonly SignInMembership[]): string | undefined {
  let chosen: SignInMembership | undefined;
  for (const membership of memberships) {
    if (chosen === undefined || landsBefore(membership, chosen)) chosen = membership;
  }
  return chosen?.workspaceId;
}

function landsBefore(a: SignInMembership, b: SignInMembership): boolean {
  if (a.lastSignInAt !== null || b.lastSignInAt !== null) {
    if (b.lastSignInAt === null) return true;
    if (a.lastSignInAt === null) return false;
    if (a.lastSignInAt !== b.lastSignInAt) return a.lastSignInAt > b.lastSignInAt;
  }
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.workspaceId < b.workspaceId;
}

/** A first-run setup link to store (its hash) and print (its token), valid SETUP_LINK_LIFETIME_MS from `now`. */
export function newSetupLink(now: number): { token: string; tokenHash: string; expiresAt: number } {
  return { ...newSecretToken(), expiresAt: now + SETUP_LINK_LIFETIME_MS };
}

/**
 * The address of a setup link: the dashboard's setup page, the token in the fragment, which
 * browsers never send to a server (nor to its logs). `origin` without a trailing slash.
 */
export function setupLinkUrl(origin: string, token: string): string {
  return `${origin}/dashboard/setup#${token}`;
}
