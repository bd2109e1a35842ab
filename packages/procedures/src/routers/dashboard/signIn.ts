import {
  DomainError,
  hashKey,
  newSignedSession,
  SESSION_LIFETIME_MS,
  SIGN_IN_FAILURES_ALLOWED,
  secondsUntil,
  signInThrottled,
  signInThrottleKey,
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
 * SIGN_IN_FAILURES_ALLOWED times in a window, attempts under way included, is refused (429)
 * before its key is even looked at.
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

/** A refund this close to the end of the window it was counted in could land in the next one. */
const REFUND_MARGIN_MS = 1000;

/**
 * Runs the sign-in's checks, counting every attempt against the caller's address (or its IPv6 /64)
 * before it runs, so that parallel attempts cannot all be checked: past the allowance an attempt
 * is refused at once (429) and its key is never looked at. An attempt that was not refused for its
 * key (401, 403) is given back. Without an address nothing is counted.
 */
export async function throttlingFailures<T>(ctx: Context, signIn: () => Promise<T>): Promise<T> {
  const throttle = ctx.services.signInThrottle;
  if (ctx.clientAddress === undefined) return signIn();
  const key = signInThrottleKey(ctx.clientAddress);
  const counted = await throttle.consume(key, SIGN_IN_FAILURES_ALLOWED);
  if (!counted.passed) throw signInThrottled(secondsUntil(counted.resetMs, 0));
  const windowEnds = Date.now() + counted.resetMs;
  let failed = false;
  try {
    return await signIn();
  } catch (error) {
    failed = error instanceof DomainError && (error.status === 401 || error.status === 403);
    throw error;
  } finally {
    if (!failed && Date.now() < windowEnds - REFUND_MARGIN_MS) {
      // Not given back, an attempt only counts against the address: no reason to fail the sign-in.
      await throttle
        .refund(key, SIGN_IN_FAILURES_ALLOWED)
        .catch((error: unknown) =>
          ctx.services.reportError('a sign-in attempt could not be given back', error, ctx.requestId),
        );
    }
  }
}
