import { findUser, listUserWorkspaces } from '@keyplane/db';
import { z } from 'zod';
import { personProcedure } from '../../trpc.ts';
import { roleSchema } from './fields.ts';

export const meOutput = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  /** Their role in the workspace they are signed in to. */
  role: roleSchema,
  workspaceId: z.string(),
  /** Every workspace they belong to, to switch between (account.switchWorkspace). */
  workspaces: z.array(z.object({ workspaceId: z.string(), name: z.string(), role: roleSchema })),
  /** They can sign in with a password (else only with passkeys or single sign-on). */
  hasPassword: z.boolean(),
});

/** Internal (the dashboard's header and account settings): the signed-in person and their workspaces. */
export const me = personProcedure.output(meOutput).query(async ({ ctx }) => {
  const { person } = ctx;
  const user = await findUser(ctx.em, person.userId);
  const workspaces = await listUserWorkspaces(ctx.em, person.userId);
  return {
    userId: person.userId,
    email: person.email,
    name: person.name,
    role: person.role,
    workspaceId: ctx.rootKey.workspaceId,
    workspaces: workspaces.map((workspace) => ({
      workspaceId: workspace.workspaceId,
      name: workspace.workspaceName,
      role: workspace.role,
    })),
    hasPassword: (user?.passwordHash ?? null) !== null,
  };
});
