import { ROOT_KEY_ACTIONS } from '@keyplane/core';
import { z } from 'zod';
import { READ_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const permissionCatalogOutput = z.object({
  resourceTypes: z.array(z.object({ resourceType: z.string(), actions: z.array(z.string()) })),
});

/** Internal: every action a root key can be granted, by resource type, for the dashboard's picker. */
export const permissionCatalog = rootKeyProcedure.output(permissionCatalogOutput).query(({ ctx }) => {
  requirePermissions(ctx.rootKey, [READ_ROOT_KEYS]);
  return {
    resourceTypes: Object.entries(ROOT_KEY_ACTIONS).map(([resourceType, actions]) => ({
      resourceType,
      actions: [...actions],
    })),
  };
});
