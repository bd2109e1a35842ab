import { passkeySignInRefused, relyingPartyOf, verifyPasskeySignIn } from '@keyplane/core';
import {
  consumePasskeyChallenge,
  findPasskeyByCredentialId,
  findSignInWorkspace,
  findUser,
  recordPasskeyUse,
} from '@keyplane/db';
import { z } from 'zod';
import { recordChange } from '../../middleware/audit.ts';
import { throttlingFailures } from '../../middleware/signInThrottle.ts';
import { linkOrigin, startPersonSession } from '../../people/sessions.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { authenticationResponseSchema } from './passkeyResponses.ts';

export const signInWithPasskeyInput = z.strictObject({
  /** What `startAuthentication` answered to the options of account.passkeySignInOptions. */
  response: authenticationResponseSchema,
});

export const signInWithPasskeyOutput = z.object({ userId: z.string(), workspaceId: z.string() });

/**
 * Internal (the sign-in page): signs a person in with a passkey, into the workspace they signed in
 * to last (else the one they joined first), with a session cookie. Every refusal is the same 401,
 * whether the passkey is unknown, its answer wrong or its owner in no workspace; failures count
 * against the caller's address as root-key sign-ins do (429 past the allowance).
 */
export const signInWithPasskey = publicProcedure
  .input(signInWithPasskeyInput)
  .output(signInWithPasskeyOutput)
  .mutation(async ({ ctx, input }) => {
    const carrier = sessionTransportOf(ctx);
    const rp = relyingPartyOf(linkOrigin(ctx));
    const signedIn = await throttlingFailures(ctx, async () => {
      const { passkeyId, userId, newCounter } = await verifyPasskeySignIn(rp, input.response, {
        consumeChallenge: (challengeHash) =>
          consumePasskeyChallenge(ctx.em, { challengeHash, purpose: 'sign_in', userId: null }),
        findPasskey: (credentialId) => findPasskeyByCredentialId(ctx.em, credentialId),
      });
      const [user, workspace] = await Promise.all([findUser(ctx.em, userId), findSignInWorkspace(ctx.em, userId)]);
      if (!user || !workspace) throw passkeySignInRefused();
      await recordPasskeyUse(ctx.em, passkeyId, newCounter);
      return { user, passkeyId, ...workspace };
    });
    const { workspaceId, role, user } = signedIn;
    const session = await startPersonSession(ctx, carrier, { userId: user.userId, workspaceId });
    const person = {
      userId: user.userId,
      email: user.email,
      name: user.name,
      role,
      sessionId: session.sessionId,
      idleExpiresAt: session.expiresAt,
      absoluteExpiresAt: session.expiresAt,
    };
    const principal = {
      rootKeyId: null,
      workspaceId,
      permissions: [],
      expiresAt: null,
      apiRequestsPerMinute: null,
      person,
    };
    await recordChange(ctx, principal, 'account.signInWithPasskey', { passkeyId: signedIn.passkeyId }, {});
    return { userId: user.userId, workspaceId };
  });
