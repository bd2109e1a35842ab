import {
  passkeyRegistrationOptions as optionsFor,
  type PasskeyRegistrationOptions,
  relyingPartyOf,
} from '@keyplane/core';
import { createPasskeyChallenge, listPasskeys } from '@keyplane/db';
import { z } from 'zod';
import { linkOrigin } from '../../people/sessions.ts';
import { personProcedure } from '../../trpc.ts';

/** The options as the browser takes them (`startRegistration({ optionsJSON })`), typed by the library. */
export const passkeyRegistrationOptionsOutput = z.custom<PasskeyRegistrationOptions>(
  (value) => typeof value === 'object' && value !== null && 'challenge' in value,
);

/**
 * Internal (the dashboard): starts adding a passkey to the signed-in person's account. The
 * challenge is stored (hashed) for a few minutes, so the answer may reach any node
 * (account.addPasskey); it records nothing an operator audits.
 */
export const passkeyRegistrationOptions = personProcedure
  .meta({ audit: false })
  .output(passkeyRegistrationOptionsOutput)
  .mutation(async ({ ctx }) => {
    const { userId, email, name } = ctx.person;
    const registered = await listPasskeys(ctx.em, userId);
    const rp = relyingPartyOf(linkOrigin(ctx));
    const { options, challenge } = await optionsFor(rp, { userId, email, name }, registered, ctx.services.now());
    await createPasskeyChallenge(ctx.em, { ...challenge, purpose: 'registration', userId });
    return options;
  });
