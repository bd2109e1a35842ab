import type { PortalSessionCarrier, SessionCarrier } from '@keyplane/procedures';
import type { Context } from 'hono';
import { generateCookie, getCookie } from 'hono/cookie';

/** The dashboard's session cookie. */
export const SESSION_COOKIE = 'keyplane_session';

/** A portal customer's session cookie: its value is the session's access token (docs/portal.md). */
export const PORTAL_SESSION_COOKIE = 'portal_session';

/** The header the dashboard sends on every call; a cross-site page cannot send it without a CORS preflight we never grant. */
export const DASHBOARD_HEADER = 'x-keyplane-dashboard';

/** The portal page's own header, for the same purpose as the dashboard's. */
export const PORTAL_HEADER = 'x-keyplane-portal';

/**
 * Why a request that authenticates by cookie (it has no Authorization header) is refused, or
 * undefined when it may go on. The cookie is SameSite=strict already; the custom header and the
 * Origin check hold even for browsers or proxies that get SameSite wrong, and keep a hostile page
 * from signing a visitor in to its own workspace.
 */
export function crossSiteRefusal(request: Request): string | undefined {
  if (request.headers.get(DASHBOARD_HEADER) !== '1' && request.headers.get(PORTAL_HEADER) !== '1') {
    return `send the ${DASHBOARD_HEADER}: 1 header (the dashboard does; the portal page sends ${PORTAL_HEADER}: 1), or authenticate with an Authorization header.`;
  }
  // Hosts, not origins: behind a proxy that ends TLS the request URL says http while the page says https.
  const origin = request.headers.get('origin');
  if (origin !== null && hostOf(origin) !== new URL(request.url).host) {
    return `the Origin ${origin} is not this service's.`;
  }
  return undefined;
}

/**
 * The origin the browser addressed (scheme from X-Forwarded-Proto behind a proxy that ends TLS), on
 * which links are made when PUBLIC_URL is unset.
 */
export function requestOriginOf(request: Request): string {
  const url = new URL(request.url);
  const forwarded = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  const protocol = forwarded === 'https' || forwarded === 'http' ? `${forwarded}:` : url.protocol;
  return `${protocol}//${url.host}`;
}

/** Hands procedures the presented session and lets them set or clear the cookie on the response. */
export function cookieSessionCarrier(c: Context, responseHeaders: Headers): SessionCarrier {
  const request = c.req.raw;
  const secure = new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
  const write = (value: string, maxAge: number, sameSite: 'Strict' | 'Lax' = 'Strict') => {
    const cookie = generateCookie(SESSION_COOKIE, value, { maxAge, path: '/', httpOnly: true, sameSite });
    // Secure goes last, in the attribute order the session tests pin (hono's puts it before SameSite).
    responseHeaders.append('set-cookie', secure ? `${cookie}; Secure` : cookie);
  };
  return {
    presented: getCookie(c, SESSION_COOKIE),
    issue(signedValue, expiresAt, sameSite) {
      write(signedValue, Math.max(0, Math.round((expiresAt - Date.now()) / 1000)), sameSite);
    },
    clear() {
      write('', 0);
    },
  };
}

/**
 * The `portal_session` cookie: HttpOnly, SameSite=Strict, Secure behind HTTPS, on every path (the
 * page lives at /portal/ and calls /trpc).
 */
export function portalCookieCarrier(c: Context, responseHeaders: Headers): PortalSessionCarrier {
  const request = c.req.raw;
  const secure = new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
  const write = (value: string, maxAge: number) => {
    const cookie = generateCookie(PORTAL_SESSION_COOKIE, value, {
      maxAge,
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
    });
    responseHeaders.append('set-cookie', secure ? `${cookie}; Secure` : cookie);
  };
  return {
    presented: getCookie(c, PORTAL_SESSION_COOKIE),
    issue(accessToken, expiresAt) {
      write(accessToken, Math.max(0, Math.round((expiresAt - Date.now()) / 1000)));
    },
    clear() {
      write('', 0);
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
