import { hashKey, newSignedSession, rootKeySignInOff, SESSION_LIFETIME_MS } from '@keyplane/core';
import { createDashboardSession, findRootKeySignIn } from '@keyplane/db';
import { z } from 'zod';
import { recordChange } from '../../middleware/audit.ts';
import { authenticateRootKeyToken, MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { throttlingFailures } from '../../middleware/signInThrottle.ts';
import { textSchema } from '../../schemas.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from './sessionTransport.ts';

export const signInInput = z.strictObject({ rootKey: textSchema.min(1).max(512) });

export const signInOutput = z.object({ workspaceId: z.string(), rootKeyId: z.string(), expiresAt: z.number() });

/**
 * Internal (the dashboard): trades a root key that may manage root keys for a session cookie, so
 * the browser keeps a revocable, expiring session instead of the key. 401 for a key that does not
 * authenticate, 403 for one without `workspace.*.manage_root_keys`. An address that failed
 * SIGN_IN_FAILURES_ALLOWED times in a window, attempts under way included, is refused (429)
 * before its key is even looked at. Root keys are the break-glass way in: 403 when the server
 * (DASHBOARD_ROOT_KEY_SIGNIN=false, before the key is looked at) or the key's workspace (an owner,
 * `workspace.setRootKeySignIn`) turned it off.
 */
export const signIn = publicProcedure
  .input(signInInput)
  .output(signInOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    if (!ctx.services.team.rootKeySignIn) throw rootKeySignInOff('server');
    const principal = await throttlingFailures(ctx, async () => {
      const authenticated = await authenticateRootKeyToken(ctx, input.rootKey.trim());
      requirePermissions(authenticated, [MANAGE_ROOT_KEYS]);
      return authenticated;
    });
    // A valid key of a workspace that refuses root keys: no guess, so not counted as a failure above.
    if ((await findRootKeySignIn(ctx.em, principal.workspaceId)) === false) throw rootKeySignInOff('workspace');
    const signingKey = ctx.services.sessionSigningKey;
    const { token, cookieValue } = newSignedSession(signingKey);
    const expiresAt = ctx.services.now() + SESSION_LIFETIME_MS;
    await createDashboardSession(ctx.em, {
      workspaceId: principal.workspaceId,
      rootKeyId: principal.rootKeyId,
      tokenHash: hashKey(token),
      expiresAt,
    });
    transport.issue(cookieValue, expiresAt);
    await recordChange(ctx, principal, 'dashboard.signIn', {}, {});
    return { workspaceId: principal.workspaceId, rootKeyId: principal.rootKeyId, expiresAt };
  });
