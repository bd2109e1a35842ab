import { listUserSessions } from '@keyplane/db';
import { z } from 'zod';
import { personProcedure } from '../../trpc.ts';

export const listSessionsOutput = z.array(
  z.object({
    sessionId: z.string(),
    createdAt: z.number().int(),
    lastSeenAt: z.number().int(),
    /** The session this call was made with. */
    current: z.boolean(),
  }),
);

/** Internal (account settings): the signed-in person's live sessions in this workspace, newest first. */
export const listSessions = personProcedure.output(listSessionsOutput).query(async ({ ctx }) => {
  const sessions = await listUserSessions(ctx.em, ctx.person.userId, ctx.rootKey.workspaceId);
  return sessions.map((session) => ({ ...session, current: session.sessionId === ctx.person.sessionId }));
});
