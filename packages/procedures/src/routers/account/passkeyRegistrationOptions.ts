import { passkeyRegistrationOptions as optionsFor, relyingPartyOf } from '@keyplane/core';
import { createPasskeyChallenge, listPasskeys } from '@keyplane/db';
import { z } from 'zod';
import { linkOrigin } from '../../people/sessions.ts';
import { personProcedure } from '../../trpc.ts';

/**
 * The options as the browser takes them (`startRegistration({ optionsJSON })`), made by SimpleWebAuthn. Typed
 * by their shape only, so that the router's published types (@keyplane/client) name no workspace package.
 */
export const passkeyRegistrationOptionsOutput = z.looseObject({ challenge: z.string() });

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
