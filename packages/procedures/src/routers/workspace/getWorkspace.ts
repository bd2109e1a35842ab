import { workspaceNotFound } from '@keyplane/core';
import { findRootKeySignIn, findWorkspace } from '@keyplane/db';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';

export const getWorkspaceOutput = z.object({
  workspaceId: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  /**
   * Root keys may open this workspace's dashboard: its owner allows it (workspace.setRootKeySignIn)
   * and so does the server (DASHBOARD_ROOT_KEY_SIGNIN).
   */
  rootKeySignIn: z.boolean(),
  /** The workspace's own setting, whatever the server's. */
  rootKeySignInWorkspace: z.boolean(),
});

/**
 * Internal (the dashboard's header and settings): the workspace of the caller's root key. Any root
 * key may read its own workspace's name; one deleted since the key was checked is a 404.
 */
export const getWorkspace = rootKeyProcedure.output(getWorkspaceOutput).query(async ({ ctx }) => {
  const workspace = await findWorkspace(ctx.em, ctx.rootKey.workspaceId);
  const allowed = await findRootKeySignIn(ctx.em, ctx.rootKey.workspaceId);
  if (!workspace || allowed === undefined) throw workspaceNotFound();
  return {
    workspaceId: workspace.id,
    name: workspace.name,
    createdAt: workspace.createdAt,
    rootKeySignIn: allowed && ctx.services.team.rootKeySignIn,
    rootKeySignInWorkspace: allowed,
  };
});
