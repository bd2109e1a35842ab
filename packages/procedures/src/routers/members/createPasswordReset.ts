import {
  memberNotFound,
  newSecretToken,
  PASSWORD_RESET_LIFETIME_MS,
  requireManagesMembers,
  requireMayResetPassword,
} from '@keyplane/core';
import { createPasswordReset as createPasswordResetRecord, findMembership, listUserWorkspaces } from '@keyplane/db';
import { z } from 'zod';
import { memberManagerOf } from '../../middleware/auth.ts';
import { linkOrigin } from '../../people/sessions.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { userIdSchema } from './memberSchemas.ts';

export const createPasswordResetInput = z.strictObject({ userId: userIdSchema });

export const createPasswordResetOutput = z.object({
  /** The single-use link, shown this once: `<origin>/dashboard/reset#<token>`. */
  url: z.string(),
  expiresAt: z.number(),
});

/**
 * A single-use link for a member to set a new password (account.resetPassword uses it up), which
 * voids any earlier one. The permission (403), the member (404), then core's rule: not oneself, not
 * someone above the caller, and not someone who also belongs to a workspace where the caller does
 * not manage people at their rank, since one account signs in to every workspace it belongs to.
 * Their password and sessions stay until the link is used.
 */
export const createPasswordReset = rootKeyProcedure
  .meta({ public: true, description: 'Issues a single-use link for a member to set a new password.', errors: [404] })
  .input(createPasswordResetInput)
  .output(createPasswordResetOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId, person } = ctx.rootKey;
    const manager = memberManagerOf(ctx.rootKey);
    requireManagesMembers(manager);
    const origin = linkOrigin(ctx);
    const membership = await findMembership(ctx.em, workspaceId, input.userId);
    if (!membership) throw memberNotFound(input.userId);
    const theirs = await listUserWorkspaces(ctx.em, input.userId);
    const mine = person ? await listUserWorkspaces(ctx.em, person.userId) : [];
    const elsewhere = theirs
      .filter((other) => other.workspaceId !== workspaceId)
      .map((other) => ({
        role: other.role,
        managerRole: mine.find((own) => own.workspaceId === other.workspaceId)?.role,
      }));
    requireMayResetPassword(manager, { userId: input.userId, role: membership.role }, elsewhere);
    const { token, tokenHash } = newSecretToken();
    const expiresAt = ctx.services.now() + PASSWORD_RESET_LIFETIME_MS;
    await createPasswordResetRecord(ctx.em, { userId: input.userId, tokenHash, expiresAt });
    return { url: `${origin}/dashboard/reset#${token}`, expiresAt };
  });
