import {
  hashKey,
  hashPassword,
  noMembershipLeft,
  passwordResetLinkInvalid,
  requireAcceptablePassword,
  signInWorkspace,
} from '@keyplane/core';
import {
  consumePasswordReset,
  findUser,
  listSignInMemberships,
  revokeUserSessions,
  setUserPassword,
} from '@keyplane/db';
import { z } from 'zod';
import { cookieAfterCommit, recordSignedIn, startSessionIn } from '../../people/accounts.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { linkTokenSchema, passwordSchema, signedInOutput } from './fields.ts';

export const resetPasswordInput = z.strictObject({ token: linkTokenSchema, password: passwordSchema });

export const resetPasswordOutput = signedInOutput;

/**
 * Internal (the dashboard's /dashboard/reset page): uses a password-reset link an owner or admin
 * issued (single use), sets the person's new password, ends every session they had, everywhere,
 * and signs them in to the workspace they signed in to last. One transaction: a refusal leaves the
 * link usable. 401 for a link unknown, used or expired alike.
 */
export const resetPassword = publicProcedure
  .input(resetPasswordInput)
  .output(resetPasswordOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    await requireAcceptablePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const cookie = cookieAfterCommit(transport);
    const done = await ctx.em.transactional(async (tx) => {
      const reset = await consumePasswordReset(tx, hashKey(input.token));
      const user = reset && (await findUser(tx, reset.userId));
      if (!user) throw passwordResetLinkInvalid();
      const workspaceId = signInWorkspace(await listSignInMemberships(tx, user.userId));
      if (workspaceId === undefined) throw noMembershipLeft();
      await setUserPassword(tx, user.userId, passwordHash);
      await revokeUserSessions(tx, user.userId);
      const started = await startSessionIn(ctx, tx, cookie.carrier, { userId: user.userId, workspaceId });
      return { user, workspaceId, started };
    });
    cookie.flush();
    const { user, workspaceId, started } = done;
    const account = { userId: user.userId, email: user.email, name: user.name };
    await recordSignedIn(ctx, account, { workspaceId, ...started }, 'account.resetPassword');
    return { userId: user.userId, workspaceId };
  });
