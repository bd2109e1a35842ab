import { listAuditEventNames } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listEventNamesInput = z.strictObject({}).optional();

export const listEventNamesOutput = z.object({ events: z.array(z.string()) });

/** Internal (the audit view's action filter): the names of the events the workspace's log holds. */
export const listEventNames = rootKeyProcedure
  .input(listEventNamesInput)
  .output(listEventNamesOutput)
  .query(async ({ ctx }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    return { events: await listAuditEventNames(ctx.em, ctx.rootKey.workspaceId) };
  });
