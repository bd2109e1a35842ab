import { createApi as createApiRecord } from '@keyplane/db';
import { z } from 'zod';
import { requirePermissions } from '../../middleware/auth.ts';
import { apiNameSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createApiInput = z.strictObject({
  name: apiNameSchema,
});

export const createApiOutput = z.object({ apiId: z.string() });

export const createApi = rootKeyProcedure
  .meta({ public: true, description: 'Creates an API, the namespace keys are created in.' })
  .input(createApiInput)
  .output(createApiOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [{ resourceType: 'api', resourceId: '*', action: 'create_api' }]);
    return { apiId: await createApiRecord(ctx.em, ctx.rootKey.workspaceId, input.name) };
  });
