import { changeMemberRole, memberNotFound } from '@keyplane/core';
import { membershipChangeStore } from '@keyplane/db';
import { z } from 'zod';
import { memberManagerOf } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { teamRoleSchema, userIdSchema } from './memberSchemas.ts';

export const updateMemberInput = z.strictObject({ userId: userIdSchema, role: teamRoleSchema });

export const updateMemberOutput = z.object({});

/**
 * Gives a member another role, by core's rules of authority (core/team/roles.ts): the permission
 * (403), the member (404), then nobody changes their own role, touches someone above them or grants
 * a role above their own (403), and the last owner stays one (412). Their sessions carry the new
 * role from their next request on, on every node: a session reads its role on every request.
 */
export const updateMember = rootKeyProcedure
  .meta({ public: true, description: "Changes a member's role.", errors: [404, 412] })
  .input(updateMemberInput)
  .output(updateMemberOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const manager = memberManagerOf(ctx.rootKey);
    const changed = await ctx.em.transactional((tx) =>
      changeMemberRole(membershipChangeStore(tx), { workspaceId, manager, userId: input.userId, role: input.role }),
    );
    if (!changed) throw memberNotFound(input.userId);
    return {};
  });
