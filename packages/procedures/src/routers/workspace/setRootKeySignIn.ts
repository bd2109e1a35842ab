import { ownerOnly, standingOf, workspaceNotFound } from '@keyplane/core';
import { setRootKeySignIn as setRootKeySignInRow } from '@keyplane/db';
import { z } from 'zod';
import { memberManagerOf } from '../../middleware/auth.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const setRootKeySignInInput = z.strictObject({ enabled: z.boolean() });

export const setRootKeySignInOutput = z.object({ rootKeySignIn: z.boolean() });

/**
 * Internal (the dashboard's settings): allows or refuses root keys as a way into this workspace's
 * dashboard (dashboard.signIn); root keys keep working at /v2 either way. Owner only: a person
 * with the role owner, or a root key standing as one (every permission: the break-glass path).
 * Sessions already open with a root key last until they expire or are signed out.
 */
export const setRootKeySignIn = rootKeyProcedure
  .input(setRootKeySignInInput)
  .output(setRootKeySignInOutput)
  .mutation(async ({ ctx, input }) => {
    if (standingOf(memberManagerOf(ctx.rootKey)) !== 'owner') {
      throw ownerOnly('turn signing in with a root key on or off');
    }
    if (!(await setRootKeySignInRow(ctx.em, ctx.rootKey.workspaceId, input.enabled))) throw workspaceNotFound();
    return { rootKeySignIn: input.enabled };
  });
