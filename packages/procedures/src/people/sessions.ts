import {
  badRequest,
  hashKey,
  newSignedSession,
  PERSON_SESSION_IDLE_MS,
  PERSON_SESSION_LIFETIME_MS,
} from '@keyplane/core';
import { createUserSession, type EntityManager, recordSignIn } from '@keyplane/db';
import type { Context, SessionCarrier } from '../context.ts';
import type { Services } from '../services.ts';

/**
 * Signs a person in to one of their workspaces: a new session (its token stored hashed), the
 * cookie that carries it (HttpOnly, SameSite=Lax, Secure behind HTTPS), and their last sign-in.
 * Every way in ends here: password, passkey, invitation, setup link, single sign-on.
 */
export async function startPersonSession(
  deps: { em: EntityManager; services: Pick<Services, 'sessionSigningKey' | 'now'> },
  carrier: SessionCarrier,
  person: { userId: string; workspaceId: string },
): Promise<{ sessionId: string; expiresAt: number }> {
  const { token, cookieValue } = newSignedSession(deps.services.sessionSigningKey, 'person');
  const absoluteExpiresAt = deps.services.now() + PERSON_SESSION_LIFETIME_MS;
  const sessionId = await createUserSession(deps.em, {
    userId: person.userId,
    workspaceId: person.workspaceId,
    tokenHash: hashKey(token),
    idleTimeoutMs: PERSON_SESSION_IDLE_MS,
    absoluteExpiresAt,
  });
  await recordSignIn(deps.em, person.workspaceId, person.userId);
  carrier.issue(cookieValue, absoluteExpiresAt, 'Lax');
  return { sessionId, expiresAt: absoluteExpiresAt };
}

/** The origin links are made on: PUBLIC_URL, else the one the request was made to. */
export function linkOrigin(
  ctx: Pick<Context, 'requestOrigin' | 'requestHost' | 'forwardedProto'> & { services: Pick<Services, 'team'> },
): string {
  const origin = ctx.services.team.publicUrl ?? ctx.requestOrigin ?? originOfHost(ctx.requestHost, ctx.forwardedProto);
  if (origin === undefined) {
    throw badRequest('This server cannot make links for this request: set PUBLIC_URL (docs/operations.md).');
  }
  return origin;
}

// A host name, IPv4 or bracketed IPv6 address, and an optional port: nothing that could carry a path,
// a user or a fragment into a link.
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a request's Host header names, the scheme from X-Forwarded-Proto (a proxy that ends
 * TLS) or else http, the node's own; undefined without a usable Host.
 */
export function originOfHost(host: string | undefined, forwardedProto: string | undefined): string | undefined {
  if (host === undefined || !HOST.test(host)) return undefined;
  const proto = forwardedProto?.split(',')[0]?.trim().toLowerCase();
  return `${proto === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
}
