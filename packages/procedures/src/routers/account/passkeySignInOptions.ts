import { passkeySignInOptions as optionsFor, type PasskeySignInOptions, relyingPartyOf } from '@keyplane/core';
import { createPasskeyChallenge } from '@keyplane/db';
import { z } from 'zod';
import { linkOrigin } from '../../people/sessions.ts';
import { publicProcedure } from '../../trpc.ts';

/** The options as the browser takes them (`startAuthentication({ optionsJSON })`), typed by the library. */
export const passkeySignInOptionsOutput = z.custom<PasskeySignInOptions>(
  (value) => typeof value === 'object' && value !== null && 'challenge' in value,
);

/**
 * Internal (the sign-in page), before anyone is signed in: a challenge any passkey of this service
 * may answer (account.signInWithPasskey). It lists no credentials and takes no email, so it says
 * nothing about who has an account; stored hashed for a few minutes, for any node to check.
 */
export const passkeySignInOptions = publicProcedure.output(passkeySignInOptionsOutput).mutation(async ({ ctx }) => {
  const { options, challenge } = await optionsFor(relyingPartyOf(linkOrigin(ctx)), ctx.services.now());
  await createPasskeyChallenge(ctx.em, { ...challenge, purpose: 'sign_in', userId: null });
  return options;
});
