import { passkeySignInRefused, relyingPartyOf, signInWorkspace, verifyPasskeySignIn } from '@keyplane/core';
import {
  consumePasskeyChallenge,
  findPasskeyByCredentialId,
  findUser,
  listSignInMemberships,
  recordPasskeyUse,
} from '@keyplane/db';
import { z } from 'zod';
import { throttlingFailures } from '../../middleware/signInThrottle.ts';
import { cookieAfterCommit, recordSignedIn, startSessionIn } from '../../people/accounts.ts';
import { linkOrigin } from '../../people/sessions.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { signedInOutput } from './fields.ts';
import { authenticationResponseSchema } from './passkeyResponses.ts';

export const signInWithPasskeyInput = z.strictObject({
  /** What `startAuthentication` answered to the options of account.passkeySignInOptions. */
  response: authenticationResponseSchema,
});

export const signInWithPasskeyOutput = signedInOutput;

/**
 * Internal (the sign-in page): signs a person in with a passkey, to the workspace they signed in to
 * last (else their oldest membership), with a session cookie. Every refusal is the same 401,
 * whether the passkey is unknown, its answer wrong or its owner in no workspace; failures count
 * against the caller's address as every dashboard sign-in's do (429 past the allowance).
 */
export const signInWithPasskey = publicProcedure
  .input(signInWithPasskeyInput)
  .output(signInWithPasskeyOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const rp = relyingPartyOf(linkOrigin(ctx));
    const { user, workspaceId, passkeyId } = await throttlingFailures(ctx, async () => {
      const verified = await verifyPasskeySignIn(rp, input.response, {
        consumeChallenge: (challengeHash) =>
          consumePasskeyChallenge(ctx.em, { challengeHash, purpose: 'sign_in', userId: null }),
        findPasskey: (credentialId) => findPasskeyByCredentialId(ctx.em, credentialId),
      });
      const [account, memberships] = await Promise.all([
        findUser(ctx.em, verified.userId),
        listSignInMemberships(ctx.em, verified.userId),
      ]);
      const landing = signInWorkspace(memberships);
      if (!account || landing === undefined) throw passkeySignInRefused();
      await recordPasskeyUse(ctx.em, verified.passkeyId, verified.newCounter);
      return { user: account, workspaceId: landing, passkeyId: verified.passkeyId };
    });
    const cookie = cookieAfterCommit(transport);
    const started = await ctx.em.transactional((tx) =>
      startSessionIn(ctx, tx, cookie.carrier, { userId: user.userId, workspaceId }),
    );
    cookie.flush();
    await recordSignedIn(ctx, user, { workspaceId, ...started }, 'account.signInWithPasskey', { passkeyId });
    return { userId: user.userId, workspaceId };
  });
