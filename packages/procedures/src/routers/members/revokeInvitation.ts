import { invitationNotFound, requireManagesMembers } from '@keyplane/core';
import { revokeInvitation as revokeInvitationRecord } from '@keyplane/db';
import { z } from 'zod';
import { memberManagerOf } from '../../middleware/auth.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const revokeInvitationInput = z.strictObject({ invitationId: resourceIdSchema });

export const revokeInvitationOutput = z.object({});

/** Revokes a pending invitation: its link no longer works. One accepted, revoked or expired is a 404. */
export const revokeInvitation = rootKeyProcedure
  .meta({ public: true, description: 'Revokes a pending invitation, so that its link no longer works.', errors: [404] })
  .input(revokeInvitationInput)
  .output(revokeInvitationOutput)
  .mutation(async ({ ctx, input }) => {
    requireManagesMembers(memberManagerOf(ctx.rootKey));
    if (!(await revokeInvitationRecord(ctx.em, ctx.rootKey.workspaceId, input.invitationId))) {
      throw invitationNotFound(input.invitationId);
    }
    return {};
  });
