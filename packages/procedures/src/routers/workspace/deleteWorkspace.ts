import { workspaceNotFound } from '@keyplane/core';
import { deleteWorkspace as deleteWorkspaceRow } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const deleteWorkspaceInput = z.strictObject({});

export const deleteWorkspaceOutput = z.object({});

/**
 * Internal (the dashboard's settings): deletes the caller's own workspace, for a root key that may
 * manage root keys (the workspace's administrators). Its root keys, sessions and keys stop working
 * on every node before this answers; the dashboard asks for the workspace's name typed first.
 */
export const deleteWorkspace = rootKeyProcedure
  .input(deleteWorkspaceInput)
  .output(deleteWorkspaceOutput)
  .mutation(async ({ ctx }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    const deleted = await deleteWorkspaceRow(ctx.em, ctx.changeLog, ctx.rootKey.workspaceId);
    // Deleted by another call since this one's root key was checked.
    if (!deleted) throw workspaceNotFound();
    return {};
  });
