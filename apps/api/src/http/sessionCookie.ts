import type { SessionCarrier } from '@keyplane/procedures';

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'keyplane_session';

/** The header the dashboard sends on every call; a cross-site page cannot send it without a CORS preflight we never grant. */
export const DASHBOARD_HEADER = 'x-keyplane-dashboard';

export function presentedSession(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === SESSION_COOKIE) return pair.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * Why a request that authenticates by cookie (it has no Authorization header) is refused, or
 * undefined when it may go on. The cookie is SameSite=strict already; the custom header and the
 * Origin check hold even for browsers or proxies that get SameSite wrong, and keep a hostile page
 * from signing a visitor in to its own workspace.
 */
export function crossSiteRefusal(request: Request): string | undefined {
  if (request.headers.get(DASHBOARD_HEADER) !== '1') {
    return `send the ${DASHBOARD_HEADER}: 1 header (the dashboard does), or authenticate with an Authorization header.`;
  }
  // Hosts, not origins: behind a proxy that ends TLS the request URL says http while the page says https.
  const origin = request.headers.get('origin');
  if (origin !== null && hostOf(origin) !== new URL(request.url).host) {
    return `the Origin ${origin} is not this service's.`;
  }
  return undefined;
}

/** Hands procedures the presented session and lets them set or clear the cookie on the response. */
export function cookieSessionCarrier(request: Request, responseHeaders: Headers): SessionCarrier {
  const secure = new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  return {
    presented: presentedSession(request.headers.get('cookie') ?? undefined),
    issue(signedValue, expiresAt) {
      const maxAge = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
      responseHeaders.append('set-cookie', `${SESSION_COOKIE}=${signedValue}; Max-Age=${maxAge}; ${attributes}`);
    },
    clear() {
      responseHeaders.append('set-cookie', `${SESSION_COOKIE}=; Max-Age=0; ${attributes}`);
    },
  };
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}
