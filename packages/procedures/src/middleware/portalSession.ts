import {
  forbiddenBecause,
  hashKey,
  PORTAL_SESSION_REQUESTS_PER_MINUTE,
  type PortalScope,
  portalSessionThrottled,
  secondsUntil,
  unauthorized,
} from '@keyplane/core';
import { findPortalSessionByToken, type PortalSessionPrincipal, recordAuditEvent } from '@keyplane/db';
import type { Context } from '../context.ts';
import { resourcesOf } from './audit.ts';

export type { PortalSessionPrincipal } from '@keyplane/db';

// The portal page shows these on its session-expired screen.
const NO_SESSION =
  'No portal session: open the portal again from the product you came from. Send the `portal_session` cookie, or `Authorization: Bearer pat_…`.';
const SESSION_ENDED =
  'This portal session has ended (expired, revoked, or the portal is off). Open the portal again from the product you came from.';

const BEARER_ACCESS_TOKEN = /^Bearer (pat_[A-Za-z0-9_-]+)$/;

/**
 * The portal session a request presents, read from the database on every request (never cached),
 * so that a revocation, a portal disabled or deleted, or the customer's identity deleted holds on
 * every node from the moment it commits. At `/v2` (no cookies) the token comes as a Bearer token.
 */
export async function authenticatePortalSession(ctx: Context): Promise<PortalSessionPrincipal> {
  let token: string | undefined;
  if (ctx.authorization !== undefined) {
    token = BEARER_ACCESS_TOKEN.exec(ctx.authorization.trim())?.[1];
    if (token === undefined) {
      throw unauthorized('The Authorization header must have the form `Bearer pat_…` (a portal access token).');
    }
  } else {
    token = ctx.portalSession?.presented;
  }
  if (token === undefined || token === '') throw unauthorized(NO_SESSION);
  const session = await findPortalSessionByToken(ctx.em, hashKey(token));
  if (!session) {
    ctx.portalSession?.clear();
    throw unauthorized(SESSION_ENDED);
  }
  return session;
}

/**
 * Counts the request against its session's requests per minute (rate-limiter-flexible, shared by
 * every node) and refuses it past them. Fails open, as the workspace rate limit does.
 */
export async function throttlePortalSession(ctx: Context, session: PortalSessionPrincipal): Promise<void> {
  let counted: Awaited<ReturnType<Context['services']['portalSessionThrottle']['consume']>>;
  try {
    counted = await ctx.services.portalSessionThrottle.consume(session.sessionId, PORTAL_SESSION_REQUESTS_PER_MINUTE);
  } catch (error) {
    ctx.services.reportError(
      'a portal session could not be throttled; the request was let through',
      error,
      ctx.requestId,
    );
    return;
  }
  if (!counted.passed) throw portalSessionThrottled(secondsUntil(counted.resetMs, 0));
}

/** 403 unless the session's scopes hold `scope` (docs/portal.md#scopes). */
export function requireScope(session: PortalSessionPrincipal, scope: PortalScope): void {
  if (!session.scopes.includes(scope)) {
    throw forbiddenBecause(`This portal session may not do this: it lacks the scope '${scope}'.`);
  }
}

/**
 * Records a customer's change in the audit log with the customer as its actor (`portalEndUser`,
 * their externalId), the portal, the session and the ids it touched. Reported, never thrown: the
 * change has happened.
 */
export async function recordPortalChange(
  ctx: Context,
  session: Pick<PortalSessionPrincipal, 'workspaceId' | 'portalId' | 'sessionId' | 'externalId'> & {
    apiId?: string;
  },
  event: string,
  input: unknown,
  output: unknown,
): Promise<void> {
  try {
    await recordAuditEvent(ctx.em, {
      workspaceId: session.workspaceId,
      rootKeyId: null,
      portalEndUser: { externalId: session.externalId, portalId: session.portalId },
      event,
      resources: {
        ...resourcesOf(input, output),
        portalId: session.portalId,
        sessionId: session.sessionId,
        ...(session.apiId !== undefined && { apiId: session.apiId }),
      },
      clientAddress: ctx.clientAddress,
    });
  } catch (error) {
    ctx.services.reportError('could not record an audit event', error, ctx.requestId);
  }
}
