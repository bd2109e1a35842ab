import {
  currentPasswordWrong,
  fieldRequired,
  hashPassword,
  requireAcceptablePassword,
  verifyPassword,
} from '@keyplane/core';
import { findUser, revokeUserSessionsExcept, setUserPassword } from '@keyplane/db';
import { z } from 'zod';
import { throttlingAccountFailures } from '../../middleware/signInThrottle.ts';
import { personProcedure } from '../../trpc.ts';
import { passwordSchema } from './fields.ts';

export const changePasswordInput = z.strictObject({
  /** Required when the person has a password; one who has none (passkeys, SSO) sets a first one without. */
  currentPassword: passwordSchema.optional(),
  newPassword: passwordSchema,
});

export const changePasswordOutput = z.object({ sessionsEnded: z.number().int() });

/**
 * Internal (account settings): sets the signed-in person's password, after their current one when
 * they have one (403 when it is wrong, counted against their email as failed sign-ins are), and
 * ends every other session of theirs, in every workspace: whoever knew the old password is out.
 */
export const changePassword = personProcedure
  .input(changePasswordInput)
  .output(changePasswordOutput)
  .mutation(async ({ ctx, input }) => {
    const { userId, email, sessionId } = ctx.person;
    await requireAcceptablePassword(input.newPassword, 'newPassword');
    const user = await findUser(ctx.em, userId);
    if (user?.passwordHash) {
      const { currentPassword } = input;
      if (currentPassword === undefined) {
        throw fieldRequired('currentPassword', 'your account has a password, so changing it needs the current one.');
      }
      const storedHash = user.passwordHash;
      await throttlingAccountFailures(ctx, email, async () => {
        if (!(await verifyPassword(storedHash, currentPassword))) throw currentPasswordWrong();
      });
    }
    const passwordHash = await hashPassword(input.newPassword);
    const sessionsEnded = await ctx.em.transactional(async (tx) => {
      await setUserPassword(tx, userId, passwordHash);
      return revokeUserSessionsExcept(tx, userId, sessionId);
    });
    return { sessionsEnded };
  });
