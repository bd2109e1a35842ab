import { memberNotFound, removeMember as removeMemberRule } from '@keyplane/core';
import { membershipChangeStore } from '@keyplane/db';
import { z } from 'zod';
import { memberManagerOf } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { userIdSchema } from './memberSchemas.ts';

export const removeMemberInput = z.strictObject({ userId: userIdSchema });

export const removeMemberOutput = z.object({});

/**
 * Removes a person from the workspace and ends their sessions in it before answering; their account
 * stays (other workspaces, a later invitation). The rules are updateMember's: nobody removes
 * themselves or someone above them (403), and the last owner stays (412).
 */
export const removeMember = rootKeyProcedure
  .meta({
    public: true,
    description: 'Removes a person from the workspace and ends their sessions in it.',
    errors: [404, 412],
  })
  .input(removeMemberInput)
  .output(removeMemberOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId } = ctx.rootKey;
    const manager = memberManagerOf(ctx.rootKey);
    const removed = await ctx.em.transactional((tx) =>
      removeMemberRule(membershipChangeStore(tx), { workspaceId, manager, userId: input.userId }),
    );
    if (!removed) throw memberNotFound(input.userId);
    return {};
  });
