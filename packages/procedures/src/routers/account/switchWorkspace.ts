import { notAMemberOf } from '@keyplane/core';
import { listUserWorkspaces, revokeUserSessionById } from '@keyplane/db';
import { z } from 'zod';
import { cookieAfterCommit, startSessionIn } from '../../people/accounts.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { personProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';

export const switchWorkspaceInput = z.strictObject({ workspaceId: resourceIdSchema });

export const switchWorkspaceOutput = z.object({ workspaceId: z.string() });

/**
 * Internal (the dashboard's workspace switcher): signs the person in to another workspace they
 * belong to and ends the session they called with. 404 for a workspace they are not a member of,
 * whether or not it exists.
 */
export const switchWorkspace = personProcedure
  .input(switchWorkspaceInput)
  .output(switchWorkspaceOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    const { userId, sessionId } = ctx.person;
    const workspaces = await listUserWorkspaces(ctx.em, userId);
    if (!workspaces.some((workspace) => workspace.workspaceId === input.workspaceId)) {
      throw notAMemberOf(input.workspaceId);
    }
    const cookie = cookieAfterCommit(transport);
    await ctx.em.transactional(async (tx) => {
      await startSessionIn(ctx, tx, cookie.carrier, { userId, workspaceId: input.workspaceId });
      await revokeUserSessionById(tx, sessionId);
    });
    cookie.flush();
    return { workspaceId: input.workspaceId };
  });
