import { listAuditEvents } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listEventsInput = z.strictObject({ ...paginationInput }).optional();

export const listEventsOutput = listOutput(
  z.object({
    id: z.string(),
    time: z.number(),
    rootKeyId: z.string().nullable(),
    event: z.string(),
    resources: z.record(z.string(), z.string()),
  }),
);

/** Internal (the dashboard's audit view): the workspace's changes, newest first. */
export const listEvents = rootKeyProcedure
  .meta({ list: true })
  .input(listEventsInput)
  .output(listEventsOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    const { workspaceId } = ctx.rootKey;
    const limit = input?.limit ?? 100;
    const found = await listAuditEvents(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input?.cursor),
      count: limit + 1,
    });
    return toPage(workspaceId, found, limit, (event) => event);
  });
