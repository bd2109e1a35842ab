import {
  DomainError,
  hashKey,
  newSignedSession,
  SESSION_LIFETIME_MS,
  SIGN_IN_FAILURES_ALLOWED,
  secondsUntil,
  signInThrottled,
} from '@keyplane/core';
import { createDashboardSession } from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { recordChange } from '../../middleware/audit.ts';
import { authenticateRootKeyToken, MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { textSchema } from '../../schemas.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from './sessionTransport.ts';

export const signInInput = z.strictObject({ rootKey: textSchema.min(1).max(512) });

export const signInOutput = z.object({ workspaceId: z.string(), rootKeyId: z.string(), expiresAt: z.number() });

/**
 * Internal (the dashboard): trades a root key that may manage root keys for a session cookie, so
 * the browser keeps a revocable, expiring session instead of the key. 401 for a key that does not
 * authenticate, 403 for one without `workspace.*.manage_root_keys`. An address that failed
 * SIGN_IN_FAILURES_ALLOWED times in a window is refused (429) before its key is even looked at.
 */
export const signIn = publicProcedure
  .input(signInInput)
  .output(signInOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const principal = await throttlingFailures(ctx, async () => {
      const authenticated = await authenticateRootKeyToken(ctx, input.rootKey.trim());
      requirePermissions(authenticated, [MANAGE_ROOT_KEYS]);
      return authenticated;
    });
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

/**
 * Runs the sign-in's checks, counting a refusal (401, 403) against the caller's address; refused
 * at once (429) while the address is over its allowance. Without an address nothing is counted.
 */
async function throttlingFailures<T>(ctx: Context, signIn: () => Promise<T>): Promise<T> {
  const throttle = ctx.services.signInThrottle;
  const address = ctx.clientAddress;
  if (address === undefined) return signIn();
  const standing = await throttle.peek(address, SIGN_IN_FAILURES_ALLOWED);
  if (!standing.passed) throw signInThrottled(secondsUntil(standing.resetMs, 0));
  try {
    return await signIn();
  } catch (error) {
    if (error instanceof DomainError && (error.status === 401 || error.status === 403)) {
      await throttle.consume(address, SIGN_IN_FAILURES_ALLOWED);
    }
    throw error;
  }
}
