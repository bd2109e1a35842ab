import { portalNotFound } from '@keyplane/core';
import { deletePortal as deletePortalRecord } from '@keyplane/db';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { loadAuthorizedPortal } from './portalAccess.ts';
import { portalIdSchema } from './portalSchemas.ts';

export const deletePortalInput = z.strictObject({ portalId: portalIdSchema });

export const deletePortal = rootKeyProcedure
  .meta({
    public: true,
    description: "Deletes a portal and ends its sessions before the call returns; its customers' keys stay.",
    errors: [404],
  })
  .input(deletePortalInput)
  .output(z.object({}))
  .mutation(async ({ ctx, input }) => {
    const portal = await loadAuthorizedPortal(ctx, input.portalId, 'delete_portal');
    if (!(await deletePortalRecord(ctx.em, portal.workspaceId, portal.id))) throw portalNotFound(input.portalId);
    return {};
  });
