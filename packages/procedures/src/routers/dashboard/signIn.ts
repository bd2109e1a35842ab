import { hashKey, newSignedSession, SESSION_LIFETIME_MS } from '@keyplane/core';
import { createDashboardSession } from '@keyplane/db';
import { z } from 'zod';
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
 * authenticate, 403 for one without `workspace.*.manage_root_keys`.
 */
export const signIn = publicProcedure
  .input(signInInput)
  .output(signInOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const principal = await authenticateRootKeyToken(ctx, input.rootKey.trim());
    requirePermissions(principal, [MANAGE_ROOT_KEYS]);
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
