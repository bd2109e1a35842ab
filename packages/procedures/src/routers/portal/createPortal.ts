import { apiNotFound } from '@keyplane/core';
import { findApi, createPortal as insertPortal } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, portalPermission, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import {
  httpsUrlSchema,
  keyPolicySchema,
  portalDisplayNameSchema,
  portalSlugSchema,
  primaryColorSchema,
  storedKeyPolicy,
} from './portalSchemas.ts';

export const createPortalInput = z.strictObject({
  apiId: apiIdSchema,
  displayName: portalDisplayNameSchema,
  /** Unique among the workspace's portals; made from the display name when absent. */
  slug: portalSlugSchema.optional(),
  logoUrl: httpsUrlSchema.optional(),
  primaryColor: primaryColorSchema.optional(),
  supportUrl: httpsUrlSchema.optional(),
  enabled: z.boolean().default(true),
  keyPolicy: keyPolicySchema.optional(),
});

export const createPortalOutput = z
  .object({ portalId: z.string() })
  .meta({ examples: [{ portalId: 'pc_0193a2b4c5d6e7f8a9b0c1d2e3f4a5b6' }] });

/** A slug from a display name: lower case, runs of anything else as one hyphen, and a suffix to keep it unique enough. */
function slugOf(displayName: string): string {
  const base = displayName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return `${base || 'portal'}-${Math.random().toString(36).slice(2, 8)}`;
}

export const createPortal = rootKeyProcedure
  .meta({
    public: true,
    description: 'Creates a customer key portal for an API: its branding and the policy of the keys customers create.',
    errors: [404, 409],
  })
  .input(createPortalInput)
  .output(createPortalOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    requirePermissions(ctx.rootKey, [portalPermission('*', 'create_portal'), apiPermission(input.apiId, 'read_api')]);
    const api = await findApi(ctx.em, workspaceId, input.apiId);
    if (!api) throw apiNotFound(input.apiId);
    const portalId = await insertPortal(ctx.em, {
      workspaceId,
      apiId: api.id,
      displayName: input.displayName,
      slug: input.slug ?? slugOf(input.displayName),
      logoUrl: input.logoUrl ?? null,
      primaryColor: input.primaryColor ?? null,
      supportUrl: input.supportUrl ?? null,
      enabled: input.enabled,
      keyPolicy: storedKeyPolicy(input.keyPolicy ?? {}),
    });
    return { portalId };
  });
