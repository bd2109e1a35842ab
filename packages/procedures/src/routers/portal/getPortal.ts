import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';
import { loadAuthorizedPortal } from './portalAccess.ts';
import { portalData, portalIdSchema, portalOutput } from './portalSchemas.ts';

export const getPortalInput = z.strictObject({ portalId: portalIdSchema });

export const getPortal = rootKeyProcedure
  .meta({ public: true, description: "A portal's branding, state and key policy.", errors: [404] })
  .input(getPortalInput)
  .output(portalOutput)
  .query(async ({ ctx, input }) => portalData(await loadAuthorizedPortal(ctx, input.portalId, 'read_portal')));
