import { portalNotFound } from '@keyplane/core';
import { findPortal } from '@keyplane/db';
import { z } from 'zod';
import { portalProcedure } from '../../trpc.ts';

/** Nothing to say: the session is the cookie (or the Bearer token at `/v2`). */
export const getSessionInput = z.strictObject({});

export const getSessionOutput = z.object({
  /** What the portal page shows of the provider; the page checks each value again before it shows it. */
  portal: z.object({
    displayName: z.string(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    supportUrl: z.string().nullable(),
  }),
  externalId: z.string(),
  /** What the page offers: an action whose scope is missing is not shown (docs/portal.md#scopes). */
  scopes: z.array(z.string()),
  /** Where the session-ended screen leads back to. */
  returnUrl: z.string().nullable(),
  expiresAt: z.number(),
});

/**
 * The portal page's first question: whose session this is, what it may do, and the provider's
 * branding. Needs no scope: any live session may read itself.
 */
export const getSession = portalProcedure
  .meta({
    public: true,
    auth: 'portalSession',
    description: "The portal customer's session: the portal's branding, the customer and the session's scopes.",
  })
  .input(getSessionInput)
  .output(getSessionOutput)
  .query(async ({ ctx }) => {
    const { portal: session } = ctx;
    // The session was found live, on a live portal, in this request: absent now, it was just deleted.
    const portal = await findPortal(ctx.em, session.workspaceId, session.portalId);
    if (!portal) throw portalNotFound(session.portalId);
    return {
      portal: {
        displayName: portal.displayName,
        logoUrl: portal.logoUrl,
        primaryColor: portal.primaryColor,
        supportUrl: portal.supportUrl,
      },
      externalId: session.externalId,
      scopes: session.scopes,
      returnUrl: session.returnUrl,
      expiresAt: session.expiresAt,
    };
  });
