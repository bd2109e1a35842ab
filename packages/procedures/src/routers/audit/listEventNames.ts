import { listAuditEventNames } from '@keyplane/db';
import { z } from 'zod';
import { READ_AUDIT_LOG, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { auditVisibility } from './auditVisibility.ts';

export const listEventNamesInput = z.strictObject({}).optional();

export const listEventNamesOutput = z.object({ events: z.array(z.string()) });

/** Internal (the audit view's action filter): the names of the events of the workspace's log the root key may see. */
export const listEventNames = rootKeyProcedure
  .input(listEventNamesInput)
  .output(listEventNamesOutput)
  .query(async ({ ctx }) => {
    requirePermissions(ctx.rootKey, [READ_AUDIT_LOG]);
    return { events: await listAuditEventNames(ctx.em, ctx.rootKey.workspaceId, auditVisibility(ctx.rootKey)) };
  });
