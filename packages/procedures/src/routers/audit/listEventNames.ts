import { listAuditEventNames, listAuditEventPeople } from '@keyplane/db';
import { z } from 'zod';
import { READ_AUDIT_LOG, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { auditVisibility } from './auditVisibility.ts';

export const listEventNamesInput = z.strictObject({}).optional();

export const listEventNamesOutput = z.object({
  events: z.array(z.string()),
  /** The people who made the changes the reader may see, by email: the audit view's person filter. */
  people: z.array(z.object({ userId: z.string(), email: z.string() })),
});

/**
 * Internal (the audit view's action and person filters): the names of the events of the workspace's
 * log the caller may see, and the people who made them.
 */
export const listEventNames = rootKeyProcedure
  .input(listEventNamesInput)
  .output(listEventNamesOutput)
  .query(async ({ ctx }) => {
    requirePermissions(ctx.rootKey, [READ_AUDIT_LOG]);
    const visibility = auditVisibility(ctx.rootKey);
    const { workspaceId } = ctx.rootKey;
    return {
      events: await listAuditEventNames(ctx.em, workspaceId, visibility),
      people: await listAuditEventPeople(ctx.em, workspaceId, visibility),
    };
  });
