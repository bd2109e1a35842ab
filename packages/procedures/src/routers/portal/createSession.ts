import {
  badRequest,
  forbidden,
  formatPermission,
  isGranted,
  isSafePortalUrl,
  newPortalSecret,
  PORTAL_CODE_LIFETIME_MS,
  PORTAL_SCOPE_ACTIONS,
  portalNotFound,
  scopeLackingRead,
} from '@keyplane/core';
import { createPortalSession, findPortal } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, portalPermission } from '../../middleware/auth.ts';
import { linkOrigin } from '../../people/sessions.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { externalIdSchema, portalIdSchema, portalScopeSchema } from './portalSchemas.ts';

export const createSessionInput = z.strictObject({
  portal: portalIdSchema,
  /** The customer, as the provider knows them: the externalId of their identity. */
  externalId: externalIdSchema,
  scopes: z
    .array(portalScopeSchema)
    .min(1)
    .max(6)
    .transform((scopes) => [...new Set(scopes)]),
  /** Opened by the provider to see the portal as this customer would. */
  preview: z.boolean().default(false),
  /** Where the portal sends the customer back: `https://`, or `http://` on a loopback host in development. */
  returnUrl: z
    .string()
    .max(2048)
    .refine((url) => isSafePortalUrl(url, { allowLoopback: true }), 'must be an https:// URL (or http:// on localhost)')
    .optional(),
});

export const createSessionOutput = z
  .object({
    id: z.string(),
    /** Where to send the customer: the portal page with a single-use code, good for 15 minutes. */
    url: z.string(),
  })
  .meta({
    examples: [
      {
        id: 'ps_0193a2b4c5d6e7f8a9b0c1d2e3f4a5b6',
        url: 'https://keyplane.example.com/portal/?code=pst_3ZZ9kPbXhg6Yv4Zq',
      },
    ],
  });

/**
 * Two stages, as the reference's: without `create_portal_session` on the portal (or every portal)
 * the portal does not exist for the caller (404, whether or not it does); then the root key must
 * hold on the portal's API everything each requested scope lets the customer do, else one 403
 * naming what it lacks: a session never hands on more than its opener holds.
 */
export const createSession = rootKeyProcedure
  .meta({
    public: true,
    description: 'Opens a portal session for one customer: answers the URL (with a single-use code) to send them to.',
    errors: [404],
    auditResources: (input, output) => ({
      portalId: (input as { portal: string }).portal,
      sessionId: (output as { id: string }).id,
    }),
  })
  .input(createSessionInput)
  .output(createSessionOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    if (!isGranted(ctx.rootKey.permissions, portalPermission(input.portal, 'create_portal_session'))) {
      throw portalNotFound(input.portal);
    }
    const portal = await findPortal(ctx.em, workspaceId, input.portal);
    if (!portal?.enabled) throw portalNotFound(input.portal);
    const lacking = scopeLackingRead(input.scopes);
    if (lacking !== undefined) {
      throw badRequest(`The scope '${lacking}' needs 'keys:read': a customer acts only on keys they see.`, [
        { location: 'body.scopes', message: `'${lacking}' needs 'keys:read'` },
      ]);
    }
    const required = [...new Set(input.scopes.flatMap((scope) => PORTAL_SCOPE_ACTIONS[scope]))].map((action) =>
      apiPermission(portal.apiId, action),
    );
    const missing = required.filter((tuple) => !isGranted(ctx.rootKey.permissions, tuple));
    if (missing.length > 0) throw forbidden(missing.map(formatPermission));
    const code = newPortalSecret('code');
    const id = await createPortalSession(ctx.em, {
      workspaceId,
      portalId: portal.id,
      externalId: input.externalId,
      scopes: input.scopes,
      preview: input.preview,
      returnUrl: input.returnUrl ?? null,
      codeHash: code.tokenHash,
      codeExpiresAt: new Date(ctx.services.now() + PORTAL_CODE_LIFETIME_MS),
      createdByRootKeyId: ctx.rootKey.rootKeyId,
    });
    return { id, url: `${linkOrigin(ctx)}/portal/?code=${code.token}` };
  });
