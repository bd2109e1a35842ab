import { revokePortalSessions } from '@keyplane/db';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { loadAuthorizedPortal } from './portalAccess.ts';
import { externalIdSchema, portalIdSchema } from './portalSchemas.ts';

export const revokeSessionInput = z.strictObject({ portal: portalIdSchema, externalId: externalIdSchema });

export const revokeSession = rootKeyProcedure
  .meta({
    public: true,
    description: 'Ends every live session of one customer on a portal, on every node before the call returns.',
    errors: [404],
    auditResources: (input) => ({ portalId: (input as { portal: string }).portal }),
  })
  .input(revokeSessionInput)
  .output(z.object({ sessionsRevoked: z.number().int() }))
  .mutation(async ({ ctx, input }) => {
    const portal = await loadAuthorizedPortal(ctx, input.portal, 'revoke_portal_session');
    // Sessions are read from the database on every request: nothing is cached to forget.
    const sessionsRevoked = await revokePortalSessions(ctx.em, portal.workspaceId, portal.id, input.externalId);
    return { sessionsRevoked };
  });
