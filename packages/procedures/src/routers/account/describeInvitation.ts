import { hashKey, invitationLinkInvalid } from '@keyplane/core';
import { findPendingInvitation, findUserByEmail, findWorkspace } from '@keyplane/db';
import { z } from 'zod';
import { publicProcedure } from '../../trpc.ts';
import { linkTokenSchema, roleSchema } from './fields.ts';

export const describeInvitationInput = z.strictObject({ token: linkTokenSchema });

export const describeInvitationOutput = z.object({
  email: z.string(),
  workspaceName: z.string(),
  role: roleSchema,
  expiresAt: z.number().int(),
  /** The invited email has an account: accepting asks for its password (or a session as that person), not a new one. */
  accountExists: z.boolean(),
});

/**
 * Internal (the dashboard's /dashboard/invite page, before anyone is signed in): what an invitation
 * link invites to, so the page can ask for what accepting needs. Only the link's holder learns
 * whether its email has an account. 401 for a link unknown, used, revoked or expired alike.
 */
export const describeInvitation = publicProcedure
  .input(describeInvitationInput)
  .output(describeInvitationOutput)
  .query(async ({ ctx, input }) => {
    const invitation = await findPendingInvitation(ctx.em, hashKey(input.token));
    const workspace = invitation && (await findWorkspace(ctx.em, invitation.workspaceId));
    if (!invitation || !workspace) throw invitationLinkInvalid();
    return {
      email: invitation.email,
      workspaceName: workspace.name,
      role: invitation.role,
      expiresAt: invitation.expiresAt,
      accountExists: (await findUserByEmail(ctx.em, invitation.email)) !== undefined,
    };
  });
