import {
  passkeySignInOptions as optionsFor,
  PASSKEY_SIGN_IN_CHALLENGES_ALLOWED,
  passkeyChallengesThrottled,
  passkeyChallengeThrottleKey,
  relyingPartyOf,
  secondsUntil,
  signInThrottleKey,
} from '@keyplane/core';
import { createPasskeyChallenge } from '@keyplane/db';
import { z } from 'zod';
import { linkOrigin } from '../../people/sessions.ts';
import { publicProcedure } from '../../trpc.ts';

/**
 * The options as the browser takes them (`startAuthentication({ optionsJSON })`), made by SimpleWebAuthn. Typed
 * by their shape only, so that the router's published types (@keyplane/client) name no workspace package.
 */
export const passkeySignInOptionsOutput = z.looseObject({ challenge: z.string() });

/**
 * Internal (the sign-in page), before anyone is signed in: a challenge any passkey of this service
 * may answer (account.signInWithPasskey). It lists no credentials and takes no email, so it says
 * nothing about who has an account; stored hashed for a few minutes, for any node to check. An
 * address asking for more than PASSKEY_SIGN_IN_CHALLENGES_ALLOWED in a sign-in throttle window is
 * refused (429): each challenge is a row until it expires.
 */
export const passkeySignInOptions = publicProcedure.output(passkeySignInOptionsOutput).mutation(async ({ ctx }) => {
  if (ctx.clientAddress !== undefined) {
    const key = passkeyChallengeThrottleKey(signInThrottleKey(ctx.clientAddress));
    const counted = await ctx.services.signInThrottle.consume(key, PASSKEY_SIGN_IN_CHALLENGES_ALLOWED);
    if (!counted.passed) throw passkeyChallengesThrottled(secondsUntil(counted.resetMs, 0));
  }
  const { options, challenge } = await optionsFor(relyingPartyOf(linkOrigin(ctx)), ctx.services.now());
  await createPasskeyChallenge(ctx.em, { ...challenge, purpose: 'sign_in', userId: null });
  return options;
});
