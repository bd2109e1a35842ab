import { workspaceNotFound } from '@keyplane/core';
import { findWorkspace } from '@keyplane/db';
import { z } from 'zod';
import { rootKeyProcedure } from '../../trpc.ts';

export const getWorkspaceOutput = z.object({
  workspaceId: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
});

/**
 * Internal (the dashboard's header and settings): the workspace of the caller's root key. Any root
 * key may read its own workspace's name; one deleted since the key was checked is a 404.
 */
export const getWorkspace = rootKeyProcedure.output(getWorkspaceOutput).query(async ({ ctx }) => {
  const workspace = await findWorkspace(ctx.em, ctx.rootKey.workspaceId);
  if (!workspace) throw workspaceNotFound();
  return { workspaceId: workspace.id, name: workspace.name, createdAt: workspace.createdAt };
});
