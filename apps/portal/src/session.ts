import { isUnauthorized, type PortalSession, portalApi } from './api.ts';
import { safeColour, safeLinkUrl } from './brand.ts';

/** The code in the address was refused (unknown, used or expired: one answer for all). */
export class CodeRefused extends Error {
  override name = 'CodeRefused';
}

/** What the session-ended screen shows once the session cannot be asked any more. */
export interface Remembered {
  displayName?: string;
  returnUrl?: string;
  primaryColor?: string;
}

const REMEMBERED = 'keyplane-portal';

/** Kept for this tab only: the provider's name, colour and the way back, for the session-ended screen. */
export function remember(session: PortalSession): void {
  const remembered: Remembered = {
    displayName: session.portal.displayName,
    returnUrl: safeLinkUrl(session.returnUrl),
    primaryColor: safeColour(session.portal.primaryColor),
  };
  try {
    sessionStorage.setItem(REMEMBERED, JSON.stringify(remembered));
  } catch {
    // Storage refused (a private window's quota): the ended screen then names no provider.
  }
}

export function remembered(): Remembered {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(REMEMBERED) ?? '{}');
    if (typeof value !== 'object' || value === null) return {};
    const { displayName, returnUrl, primaryColor } = value as Record<string, unknown>;
    return {
      displayName: typeof displayName === 'string' ? displayName : undefined,
      returnUrl: safeLinkUrl(returnUrl),
      primaryColor: safeColour(primaryColor),
    };
  } catch {
    return {};
  }
}

let starting: Promise<PortalSession> | undefined;

/**
 * Once per page load: takes the one-time code out of the address at once (so neither a reload, the
 * history nor a shared screenshot holds it), exchanges it for the session cookie, then asks what
 * the session is. Without a code the cookie of an earlier exchange may still hold a session.
 */
export function startSession(): Promise<PortalSession> {
  starting ??= (async () => {
    const url = new URL(window.location.href);
    const code = url.searchParams.get('code');
    if (code !== null) {
      url.searchParams.delete('code');
      window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
      try {
        await portalApi.exchangeCode(code);
      } catch (error) {
        throw isUnauthorized(error) ? new CodeRefused('The link was refused.') : error;
      }
    }
    const session = await portalApi.getSession();
    remember(session);
    return session;
  })();
  return starting;
}
