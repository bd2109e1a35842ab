import { formatTime } from './format.ts';

// In this tab's sessionStorage, so the sign-in page still says it after a reload: a sentence for
// people, never the root key or the session's cookie.
const REASON_KEY = 'keyplane:session-end-reason';

/**
 * Notes why the session known as `session` ended, from the 401 that ended it, for the sign-in page
 * to say. A session the browser let lapse reaches the server without its cookie, so its expiry is
 * told from the time; otherwise the server's answer says why (revoked, expired root key, unknown).
 */
export function noteSessionEnd(session: { expiresAt: number } | undefined, error: Error, now = Date.now()): void {
  // No session was known (a first visit, or just signed out): nothing ended.
  if (!session) return;
  const reason =
    session.expiresAt <= now
      ? `Your session expired at ${formatTime(session.expiresAt)}. Sign in again.`
      : error.message;
  sessionStorage.setItem(REASON_KEY, reason);
}

/** Why the last session ended, shown on the sign-in page (reloads included) until the next sign-in. */
export function sessionEndReason(): string | undefined {
  return sessionStorage.getItem(REASON_KEY) ?? undefined;
}

export function clearSessionEndReason(): void {
  sessionStorage.removeItem(REASON_KEY);
}
