import { z } from 'zod';
import { publicProcedure } from '../../trpc.ts';

export const signInOptionsOutput = z.object({
  password: z.literal(true),
  passkeys: z.literal(true),
  /** Single sign-on is configured (OIDC_ISSUER): the sign-in page offers "Sign in with SSO". */
  sso: z.boolean(),
  /** Root keys may open the dashboard on this server (DASHBOARD_ROOT_KEY_SIGNIN); a workspace may still refuse them. */
  rootKey: z.boolean(),
});

/** Internal (the sign-in page, before anyone is signed in): the ways in this server offers. */
export const signInOptions = publicProcedure.output(signInOptionsOutput).query(({ ctx }) => ({
  password: true as const,
  passkeys: true as const,
  sso: ctx.services.team.sso,
  rootKey: ctx.services.team.rootKeySignIn,
}));
