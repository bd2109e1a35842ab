import type { WorkspaceRateLimitState } from '@keyplane/core';
import type { EntityManager } from '@keyplane/db';
import type { Services } from './services.ts';

/** Everything a procedure may use, with no transport in it: what tests build directly. */
export interface Context {
  /** A fork of the entity manager for this request alone. */
  em: EntityManager;
  requestId: string;
  /** The raw `Authorization` header, checked by the root-key middleware. */
  authorization: string | undefined;
  vaultMasterKey: Uint8Array | undefined;
  services: Services;
  /** The dashboard's cookie session, where the transport carries one (`/trpc`); absent on `/v2`. */
  session?: SessionCarrier;
  /** A portal customer's cookie session (`portal_session`), where the transport carries one (`/trpc`). */
  portalSession?: PortalSessionCarrier;
  /**
   * The origin the request was made to (`https://keyplane.example.com`, as the browser saw it behind a
   * trusted proxy): links are made on it when PUBLIC_URL is unset. Absent where the transport does not say.
   */
  requestOrigin?: string;
  /**
   * Where the transport passes the request's Host header (and X-Forwarded-Proto) as they came rather
   * than an origin (`/v2`, whose hot path should not build one no call uses): `linkOrigin` makes the
   * origin from them only when a link is made.
   */
  requestHost?: string;
  forwardedProto?: string;
  /** The caller's network address as the transport sees it (behind a trusted proxy, the forwarded one). */
  clientAddress?: string;
  /** The caller asked that this call not be recorded in analytics (`X-Unkey-Metrics: disabled`). */
  metricsDisabled?: boolean;
  /** Told where the workspace API rate limit stands after this request counted, so the transport can show it. */
  onWorkspaceRateLimit?(state: WorkspaceRateLimitState): void;
  /**
   * Where one request carries several calls (a `/trpc` batch), runs each of them in turn, one
   * after the other: a batch then holds the node, its connections and its memory as one call
   * does at a time, not as many at once (docs/contract.md#limits). Absent: the call runs at once.
   */
  inTurn?: <T>(call: () => Promise<T>) => Promise<T>;
}

/** An `inTurn` for the calls of one request: each starts once the one before it has finished, failed or not. */
export function oneAtATime(): <T>(call: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (call) => {
    const started = last.then(call, call);
    last = started.catch(() => {});
    return started;
  };
}

/** How a procedure reads and sets the browser's session cookie without knowing it is a cookie. */
export interface SessionCarrier {
  /** The signed session value the request presented, if any. */
  presented: string | undefined;
  /**
   * Hands the browser this signed value to present until `expiresAt` (unix ms). `Lax` for a person's
   * session, which a sign-in through the OpenID provider's redirect must carry; `Strict` otherwise.
   */
  issue(signedValue: string, expiresAt: number, sameSite?: 'Strict' | 'Lax'): void;
  /** Tells the browser to forget its session. */
  clear(): void;
}

/**
 * How a portal procedure reads and sets the `portal_session` cookie (HttpOnly, SameSite=Strict,
 * Secure behind HTTPS), whose value is the session's access token itself (docs/portal.md#sessions).
 */
export interface PortalSessionCarrier {
  presented: string | undefined;
  issue(accessToken: string, expiresAt: number): void;
  clear(): void;
}

export function createContextInner(options: Context): Context {
  return options;
}
