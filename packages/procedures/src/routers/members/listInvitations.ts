import { listInvitationPage } from '@keyplane/db';
import { z } from 'zod';
import { READ_MEMBERS, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { teamRoleSchema } from './memberSchemas.ts';

export const listInvitationsInput = z.strictObject({ ...paginationInput }).prefault({});

export const listInvitationsOutput = listOutput(
  z
    .object({
      invitationId: z.string(),
      email: z.string(),
      role: teamRoleSchema,
      expiresAt: z.number(),
      createdAt: z.number(),
      /** Null when a root key invited, or the inviter's account is gone. */
      invitedBy: z.object({ userId: z.string(), email: z.string() }).nullable(),
    })
    .meta({ id: 'Invitation' }),
);

/**
 * The workspace's pending invitations (not accepted, revoked or expired) in creation order. Never
 * their links: a link is shown once, when the invitation is made.
 */
export const listInvitations = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's pending invitations." })
  .input(listInvitationsInput)
  .output(listInvitationsOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [READ_MEMBERS]);
    const { workspaceId } = ctx.rootKey;
    const rows = await listInvitationPage(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
    });
    return toPage(workspaceId, rows, input.limit, ({ id, ...invitation }) => ({ invitationId: id, ...invitation }));
  });
