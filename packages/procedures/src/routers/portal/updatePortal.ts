import { portalNotFound } from '@keyplane/core';
import { updatePortal as updatePortalRecord } from '@keyplane/db';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { loadAuthorizedPortal } from './portalAccess.ts';
import {
  httpsUrlSchema,
  keyPolicySchema,
  portalDisplayNameSchema,
  portalIdSchema,
  portalSlugSchema,
  primaryColorSchema,
  storedKeyPolicy,
} from './portalSchemas.ts';

export const updatePortalInput = z.strictObject({
  portalId: portalIdSchema,
  displayName: portalDisplayNameSchema.optional(),
  slug: portalSlugSchema.optional(),
  /** null removes it. */
  logoUrl: httpsUrlSchema.nullable().optional(),
  primaryColor: primaryColorSchema.nullable().optional(),
  supportUrl: httpsUrlSchema.nullable().optional(),
  /** false ends every session of the portal before the call answers. */
  enabled: z.boolean().optional(),
  /** Replaces the policy whole; keys created before keep what they were given. */
  keyPolicy: keyPolicySchema.optional(),
});

export const updatePortal = rootKeyProcedure
  .meta({
    public: true,
    description: "Changes a portal's fields; fields left out stay as they are. Disabling it ends its sessions.",
    errors: [404, 409],
  })
  .input(updatePortalInput)
  .output(z.object({}))
  .mutation(async ({ ctx, input }) => {
    const { portalId, keyPolicy, ...changes } = input;
    const portal = await loadAuthorizedPortal(ctx, portalId, 'update_portal');
    // Sessions are read from the database on every request: a portal off is refused at once everywhere.
    const updated = await updatePortalRecord(ctx.em, portal.workspaceId, portal.id, {
      ...changes,
      ...(keyPolicy !== undefined && { keyPolicy: storedKeyPolicy(keyPolicy) }),
    });
    if (!updated) throw portalNotFound(portalId);
    return {};
  });
