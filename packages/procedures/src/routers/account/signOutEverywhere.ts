import { revokeUserSessions } from '@keyplane/db';
import { z } from 'zod';
import { personProcedure } from '../../trpc.ts';

export const signOutEverywhereOutput = z.object({ sessionsEnded: z.number().int() });

/**
 * Internal (account settings): ends every session of the signed-in person, in every workspace,
 * this one included, and tells the browser to forget its cookie. Every node refuses them at once:
 * sessions are read from the database on every request.
 */
export const signOutEverywhere = personProcedure.output(signOutEverywhereOutput).mutation(async ({ ctx }) => {
  const sessionsEnded = await revokeUserSessions(ctx.em, ctx.person.userId);
  ctx.session?.clear();
  return { sessionsEnded };
});
