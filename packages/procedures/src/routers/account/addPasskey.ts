import { badRequest, relyingPartyOf, verifyPasskeyRegistration } from '@keyplane/core';
import { consumePasskeyChallenge, addPasskey as storePasskey } from '@keyplane/db';
import { z } from 'zod';
import { linkOrigin } from '../../people/sessions.ts';
import { personProcedure } from '../../trpc.ts';
import { passkeyNameSchema, registrationResponseSchema } from './passkeyResponses.ts';

export const addPasskeyInput = z.strictObject({
  name: passkeyNameSchema,
  /** What `startRegistration` answered to the options of account.passkeyRegistrationOptions. */
  response: registrationResponseSchema,
});

export const addPasskeyOutput = z.object({ passkeyId: z.string() });

/**
 * Internal (the dashboard): adds the passkey the browser just created to the signed-in person's
 * account, once its answer to their unused, unexpired challenge verifies for this origin (400
 * otherwise, saying why).
 */
export const addPasskey = personProcedure
  .input(addPasskeyInput)
  .output(addPasskeyOutput)
  .mutation(async ({ ctx, input }) => {
    const { userId } = ctx.person;
    const rp = relyingPartyOf(linkOrigin(ctx));
    const passkey = await verifyPasskeyRegistration(rp, input.response, (challengeHash) =>
      consumePasskeyChallenge(ctx.em, { challengeHash, purpose: 'registration', userId }),
    );
    const passkeyId = await storePasskey(ctx.em, { ...passkey, userId, name: input.name });
    if (passkeyId === undefined) {
      const detail = 'This passkey is registered already.';
      throw badRequest(detail, [{ location: 'body.response.id', message: detail }]);
    }
    return { passkeyId };
  });
