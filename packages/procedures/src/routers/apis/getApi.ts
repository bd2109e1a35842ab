import { apiNotFound } from '@keyplane/core';
import { type ApiRecord, findApi } from '@keyplane/db';
import { z } from 'zod';
import { apiPermission, requirePermissions } from '../../middleware/auth.ts';
import { apiIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const getApiInput = z.strictObject({ apiId: apiIdSchema });

export const getApiOutput = z.object({
  id: z.string(),
  name: z.string(),
  keyAuth: z.object({ enabled: z.boolean() }),
  encryption: z.object({ enabled: z.boolean() }),
  defaultPrefix: z.string().nullable(),
  defaultBytes: z.number().int().nullable(),
  deleteProtection: z.boolean(),
  createdAt: z.number().int(),
});

export const getApi = rootKeyProcedure
  .meta({ public: true, description: 'Returns an API with its settings.', errors: [404] })
  .input(getApiInput)
  .output(getApiOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [apiPermission(input.apiId, 'read_api')]);
    const api = await findApi(ctx.em, ctx.rootKey.workspaceId, input.apiId);
    if (!api) throw apiNotFound(input.apiId);
    return apiData(api);
  });

export function apiData(api: ApiRecord): z.infer<typeof getApiOutput> {
  return {
    id: api.id,
    name: api.name,
    keyAuth: { enabled: api.keyAuthEnabled },
    encryption: { enabled: api.encryptionEnabled },
    defaultPrefix: api.defaultPrefix,
    defaultBytes: api.defaultBytes,
    deleteProtection: api.deleteProtection,
    createdAt: api.createdAt,
  };
}
