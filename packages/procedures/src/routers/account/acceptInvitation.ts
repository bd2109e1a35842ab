import {
  accountExists,
  fieldRequired,
  hashKey,
  hashPassword,
  invitationLinkInvalid,
  requireAcceptablePassword,
  verifyPassword,
  wrongCredentials,
} from '@keyplane/core';
import {
  acceptInvitation as acceptInvitationRow,
  createMembership,
  createUser,
  type EntityManager,
  findUserByEmail,
  type InvitationRecord,
} from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { authenticate } from '../../middleware/auth.ts';
import { throttlingAccountFailures, throttlingFailures } from '../../middleware/signInThrottle.ts';
import { cookieAfterCommit, recordSignedIn, type SignedInAccount, startSessionIn } from '../../people/accounts.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { linkTokenSchema, passwordSchema, personNameSchema, signedInOutput } from './fields.ts';

export const acceptInvitationInput = z.strictObject({
  token: linkTokenSchema,
  /** For a new account: the person's name. */
  name: personNameSchema.optional(),
  /** For a new account, its password; for an existing one, its password, unless signed in as that person. */
  password: passwordSchema.optional(),
});

export const acceptInvitationOutput = signedInOutput;

/**
 * Internal (the dashboard's /dashboard/invite page): uses an invitation link (single use). For an
 * email with no account it creates one (name and password required, the password policy checked);
 * for one with an account the person proves it is theirs (its password, or a session as them).
 * They join the workspace with the invited role and are signed in there. One transaction: a
 * refusal leaves the link usable. 401 for a link unknown, used, revoked or expired alike, and for
 * a wrong password (counted as a failed sign-in).
 */
export const acceptInvitation = publicProcedure
  .input(acceptInvitationInput)
  .output(acceptInvitationOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const signedInAs = await signedInPersonOf(ctx);
    const cookie = cookieAfterCommit(transport);
    const done = await throttlingFailures(ctx, () =>
      ctx.em.transactional(async (tx) => {
        const invitation = await acceptInvitationRow(tx, hashKey(input.token));
        if (!invitation) throw invitationLinkInvalid();
        const account = await accountFor(ctx, tx, invitation, input, signedInAs);
        // Already a member (invited twice, or joined since): they keep the role they have.
        await createMembership(tx, {
          workspaceId: invitation.workspaceId,
          userId: account.userId,
          role: invitation.role,
        });
        const started = await startSessionIn(ctx, tx, cookie.carrier, {
          userId: account.userId,
          workspaceId: invitation.workspaceId,
        });
        return { account, invitation, started };
      }),
    );
    cookie.flush();
    const { account, invitation, started } = done;
    await recordSignedIn(
      ctx,
      account,
      { workspaceId: invitation.workspaceId, ...started },
      'account.acceptInvitation',
      {
        invitationId: invitation.invitationId,
      },
    );
    return { userId: account.userId, workspaceId: invitation.workspaceId };
  });

/** The person whose session the request carries, if any and still live: they need no password. */
async function signedInPersonOf(ctx: Context): Promise<string | undefined> {
  if (ctx.session?.presented === undefined || ctx.authorization !== undefined) return undefined;
  try {
    return (await authenticate(ctx)).person?.userId;
  } catch {
    return undefined;
  }
}

/** The invited email's account: the existing one, proven to be the caller's, or a new one. */
async function accountFor(
  ctx: Context,
  tx: EntityManager,
  invitation: InvitationRecord,
  input: z.infer<typeof acceptInvitationInput>,
  signedInAs: string | undefined,
): Promise<SignedInAccount> {
  const existing = await findUserByEmail(tx, invitation.email);
  if (existing) {
    if (existing.userId !== signedInAs) {
      const { password } = input;
      if (password === undefined) {
        throw fieldRequired('password', 'this email has an account: enter its password, or sign in first.');
      }
      await throttlingAccountFailures(ctx, invitation.email, async () => {
        if (!(await verifyPassword(existing.passwordHash, password))) throw wrongCredentials();
      });
    }
    return { userId: existing.userId, email: existing.email, name: existing.name };
  }
  const { name, password } = input;
  if (name === undefined) throw fieldRequired('name', 'accepting creates your account, which needs your name.');
  if (password === undefined)
    throw fieldRequired('password', 'accepting creates your account, which needs a password.');
  await requireAcceptablePassword(password);
  const userId = await createUser(tx, { email: invitation.email, name, passwordHash: await hashPassword(password) });
  // Created by another call since it was looked up.
  if (userId === undefined) throw accountExists();
  return { userId, email: invitation.email, name };
}
