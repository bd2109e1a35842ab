import { listMemberPage } from '@keyplane/db';
import { z } from 'zod';
import { READ_MEMBERS, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { teamRoleSchema } from './memberSchemas.ts';

// Optional, as every list's: `{}` is the first page of 100.
export const listMembersInput = z.strictObject({ ...paginationInput }).prefault({});

export const memberOutput = z
  .object({
    userId: z.string(),
    email: z.string(),
    name: z.string(),
    role: teamRoleSchema,
    /** Unix ms of their last sign-in to this workspace; null: never signed in to it. */
    lastSignInAt: z.number().nullable(),
  })
  .meta({ id: 'Member' });

export const listMembersOutput = listOutput(memberOutput);

/** The workspace's people in user-id order, for a caller who may read them (`workspace.*.read_members`, which viewers and `manage_members` hold). */
export const listMembers = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's people and their roles." })
  .input(listMembersInput)
  .output(listMembersOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [READ_MEMBERS]);
    const { workspaceId } = ctx.rootKey;
    const rows = await listMemberPage(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
    });
    return toPage(workspaceId, rows, input.limit, ({ id, ...member }) => ({ userId: id, ...member }));
  });
