import { unauthorized } from '@keyplane/core';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';

export const sessionOutput = z.object({
  workspaceId: z.string(),
  rootKeyId: z.string(),
  rootKeyName: z.string().nullable(),
  permissions: z.array(z.string()),
  expiresAt: z.number(),
});

/** Internal (the dashboard): who is signed in, or 401 when the session has expired or ended. */
export const session = rootKeyProcedure.output(sessionOutput).query(({ ctx }) => {
  const { session: signedIn, rootKeyId, workspaceId, permissions } = ctx.rootKey;
  if (!signedIn) throw unauthorized('This call is for dashboard sessions; no session cookie was presented.');
  return {
    workspaceId,
    rootKeyId,
    rootKeyName: signedIn.rootKeyName,
    permissions: [...permissions],
    expiresAt: signedIn.expiresAt,
  };
});
