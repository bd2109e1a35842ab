import { listPortalSessions } from '@keyplane/db';
import { z } from 'zod';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { loadAuthorizedPortal } from './portalAccess.ts';
import { externalIdSchema, portalIdSchema } from './portalSchemas.ts';

export const listSessionsInput = z.strictObject({
  portal: portalIdSchema,
  /** Only this customer's sessions. */
  externalId: externalIdSchema.optional(),
  ...paginationInput,
});

export const portalSessionOutput = z
  .object({
    id: z.string(),
    portalId: z.string(),
    externalId: z.string(),
    scopes: z.array(z.string()),
    preview: z.boolean(),
    returnUrl: z.string().nullable(),
    /** The root key that opened it; null when a person did from the dashboard. */
    createdByRootKeyId: z.string().nullable(),
    createdAt: z.number(),
    /** When its code was exchanged; null while unused. */
    exchangedAt: z.number().nullable(),
    /** When its code (unused) or its access token ends. */
    expiresAt: z.number(),
    revokedAt: z.number().nullable(),
  })
  .meta({ id: 'PortalSession' });

export const listSessions = rootKeyProcedure
  .meta({
    public: true,
    list: true,
    description: "Lists a portal's sessions, newest last, without their codes or tokens.",
    errors: [404],
  })
  .input(listSessionsInput)
  .output(listOutput(portalSessionOutput))
  .query(async ({ ctx, input }) => {
    const portal = await loadAuthorizedPortal(ctx, input.portal, 'read_portal');
    const { workspaceId } = ctx.rootKey;
    const found = await listPortalSessions(ctx.em, workspaceId, {
      portalId: portal.id,
      externalId: input.externalId,
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
    });
    return toPage(workspaceId, found, input.limit, (session) => session);
  });
