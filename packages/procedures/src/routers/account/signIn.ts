import { noMembershipLeft, signInWorkspace, verifyPassword, wrongCredentials } from '@keyplane/core';
import { findUserByEmail, listSignInMemberships, type UserRecord } from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { recordChange } from '../../middleware/audit.ts';
import { throttlingAccountFailures, throttlingFailures } from '../../middleware/signInThrottle.ts';
import { cookieAfterCommit, recordSignedIn, startSessionIn } from '../../people/accounts.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { emailSchema, passwordSchema, signedInOutput } from './fields.ts';

export const signInInput = z.strictObject({ email: emailSchema, password: passwordSchema });

export const signInOutput = signedInOutput;

/**
 * Internal (the sign-in page): signs a person in with their email and password, to the workspace
 * they signed in to last (else their oldest membership). An unknown email and a wrong password get
 * the same 401 after the same work (one argon2id verification). Failures are counted per client
 * address and per email, known or not: past either allowance, 429 before the password is checked.
 * A right password of a person who belongs to no workspace any more: 403.
 */
export const signIn = publicProcedure
  .input(signInInput)
  .output(signInOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const { user, workspaceId } = await throttlingFailures(ctx, () =>
      throttlingAccountFailures(ctx, input.email, () => checkCredentials(ctx, input.email, input.password)),
    );
    const cookie = cookieAfterCommit(transport);
    const started = await ctx.em.transactional((tx) =>
      startSessionIn(ctx, tx, cookie.carrier, { userId: user.userId, workspaceId }),
    );
    cookie.flush();
    await recordSignedIn(ctx, user, { workspaceId, ...started }, 'account.signIn');
    return { userId: user.userId, workspaceId };
  });

async function checkCredentials(
  ctx: Context,
  email: string,
  password: string,
): Promise<{ user: UserRecord; workspaceId: string }> {
  const user = await findUserByEmail(ctx.em, email);
  // Verified even without an account (against a stand-in hash), so both take the same time.
  const matches = await verifyPassword(user?.passwordHash, password);
  if (!user || !matches) {
    if (user) await recordFailure(ctx, user);
    throw wrongCredentials();
  }
  const workspaceId = signInWorkspace(await listSignInMemberships(ctx.em, user.userId));
  if (workspaceId === undefined) throw noMembershipLeft();
  return { user, workspaceId };
}

/** A wrong password for an account, in the audit log of each workspace it belongs to; never the password. */
async function recordFailure(ctx: Context, user: UserRecord): Promise<void> {
  const memberships = await listSignInMemberships(ctx.em, user.userId);
  for (const { workspaceId } of memberships) {
    // No actor: whoever typed it is not known to be the person.
    const principal = { rootKeyId: null, workspaceId, permissions: [], expiresAt: null, apiRequestsPerMinute: null };
    await recordChange(ctx, principal, 'account.signInFailed', { userId: user.userId }, {});
  }
}
