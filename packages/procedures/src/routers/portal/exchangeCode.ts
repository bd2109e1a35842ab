import { hashKey, newPortalSecret, PORTAL_ACCESS_LIFETIME_MS, unauthorized } from '@keyplane/core';
import { exchangePortalCode } from '@keyplane/db';
import { z } from 'zod';
import { recordPortalChange } from '../../middleware/portalSession.ts';
import { publicProcedure } from '../../trpc.ts';

export const exchangeCodeInput = z.strictObject({
  code: z.string().min(1).max(256),
});

export const exchangeCodeOutput = z
  .object({
    /** The session's access token: the `portal_session` cookie's value, or `Bearer pat_…` at `/v2`. */
    accessToken: z.string(),
    expiresAt: z.number(),
  })
  .meta({ examples: [{ accessToken: 'pat_3ZZ9kPbXhg6Yv4ZqZrFBuPQJ', expiresAt: 1764547200000 }] });

// One answer for every code that opens nothing: which codes existed is no one's business.
const CODE_REFUSED =
  'This portal link is not valid: it was used already, has expired, or was never issued. Open the portal again from the product you came from.';

/**
 * A portal customer's way in (no Authorization): the session's single-use code for its access
 * token, 24 hours, also set as the HttpOnly, SameSite=Strict `portal_session` cookie where the
 * transport has cookies (`/trpc`).
 */
export const exchangeCode = publicProcedure
  .meta({
    public: true,
    auth: 'none',
    description:
      "Exchanges a portal session's single-use code for its access token (also set as the portal_session cookie).",
  })
  .input(exchangeCodeInput)
  .output(exchangeCodeOutput)
  .mutation(async ({ ctx, input }) => {
    const access = newPortalSecret('accessToken');
    const expiresAt = ctx.services.now() + PORTAL_ACCESS_LIFETIME_MS;
    const session = await exchangePortalCode(ctx.em, hashKey(input.code), {
      tokenHash: access.tokenHash,
      expiresAt: new Date(expiresAt),
    });
    if (!session) throw unauthorized(CODE_REFUSED);
    ctx.portalSession?.issue(access.token, expiresAt);
    await recordPortalChange(ctx, session, 'portal.exchangeCode', {}, {});
    return { accessToken: access.token, expiresAt };
  });
