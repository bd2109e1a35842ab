import { TEAM_ROLES, unauthorized } from '@keyplane/core';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';

export const sessionOutput = z.object({
  workspaceId: z.string(),
  /** The root key an operator signed in with; null for a person. */
  rootKeyId: z.string().nullable(),
  rootKeyName: z.string().nullable(),
  /** The person signed in to their account; null for a root-key sign-in. */
  person: z.object({ userId: z.string(), email: z.string(), name: z.string(), role: z.enum(TEAM_ROLES) }).nullable(),
  permissions: z.array(z.string()),
  /** When the session ends unless used again. */
  expiresAt: z.number(),
});

/** Internal (the dashboard): who is signed in, or 401 when the session has expired or ended. */
export const session = rootKeyProcedure.output(sessionOutput).query(({ ctx }) => {
  const { session: signedIn, person, rootKeyId, workspaceId, permissions } = ctx.rootKey;
  if (person) {
    const { userId, email, name, role } = person;
    return {
      workspaceId,
      rootKeyId: null,
      rootKeyName: null,
      person: { userId, email, name, role },
      permissions: [...permissions],
      expiresAt: person.idleExpiresAt,
    };
  }
  if (!signedIn) throw unauthorized('This call is for dashboard sessions; no session cookie was presented.');
  return {
    workspaceId,
    rootKeyId,
    rootKeyName: signedIn.rootKeyName,
    person: null,
    permissions: [...permissions],
    expiresAt: signedIn.expiresAt,
  };
});
