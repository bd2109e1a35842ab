import { listRootKeys as listRootKeyRecords } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listRootKeysInput = z.strictObject({}).optional();

export const listRootKeysOutput = z.object({
  rootKeys: z.array(
    z.object({
      rootKeyId: z.string(),
      name: z.string().nullable(),
      start: z.string(),
      permissions: z.array(z.string()),
      createdAt: z.number(),
      lastUsedAt: z.number().nullable(),
      expiresAt: z.number().nullable(),
      revokedAt: z.number().nullable(),
    }),
  ),
});

/** Internal (dashboard and typed client only): the workspace's root keys, never their secrets. */
export const listRootKeys = rootKeyProcedure
  .input(listRootKeysInput)
  .output(listRootKeysOutput)
  .query(async ({ ctx }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    return { rootKeys: await listRootKeyRecords(ctx.em, ctx.rootKey.workspaceId) };
  });
