import { hashKey, openSignedSession } from '@keyplane/core';
import { deleteDashboardSession, revokeUserSession } from '@keyplane/db';
import { z } from 'zod';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from './sessionTransport.ts';

export const signOutOutput = z.object({});

/** Internal (the dashboard): ends the session on the server, not only in the browser. Always succeeds. */
export const signOut = publicProcedure.output(signOutOutput).mutation(async ({ ctx }) => {
  const transport = sessionTransportOf(ctx);
  const opened =
    transport.presented === undefined
      ? undefined
      : openSignedSession(ctx.services.sessionSigningKey, transport.presented);
  if (opened?.kind === 'rootKey') await deleteDashboardSession(ctx.em, hashKey(opened.token));
  if (opened?.kind === 'person') await revokeUserSession(ctx.em, hashKey(opened.token));
  transport.clear();
  return {};
});
