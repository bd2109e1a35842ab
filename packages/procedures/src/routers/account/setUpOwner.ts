import {
  accountExists,
  hashKey,
  hashPassword,
  requireAcceptablePassword,
  setupLinkInvalid,
  workspaceOwned,
} from '@keyplane/core';
import { consumeSetupLink, createMembership, createUser, findFirstWorkspace, workspaceHasOwner } from '@keyplane/db';
import { z } from 'zod';
import { cookieAfterCommit, recordSignedIn, startSessionIn } from '../../people/accounts.ts';
import { publicProcedure } from '../../trpc.ts';
import { sessionTransportOf } from '../dashboard/sessionTransport.ts';
import { emailSchema, linkTokenSchema, passwordSchema, personNameSchema, signedInOutput } from './fields.ts';

export const setUpOwnerInput = z.strictObject({
  token: linkTokenSchema,
  email: emailSchema,
  name: personNameSchema,
  password: passwordSchema,
});

export const setUpOwnerOutput = signedInOutput;

/**
 * Internal (the dashboard's /dashboard/setup page): uses a first-run setup link (single use, 24 h)
 * to create the first person's account, make them owner of the first workspace (the one the
 * bootstrap created) and sign them in. All of it or nothing: one transaction, so a refusal leaves
 * the link usable. 401 for a link unknown, used or expired alike; 409 once the workspace has an owner.
 */
export const setUpOwner = publicProcedure
  .input(setUpOwnerInput)
  .output(setUpOwnerOutput)
  .mutation(async ({ ctx, input }) => {
    const transport = sessionTransportOf(ctx);
    await requireAcceptablePassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const cookie = cookieAfterCommit(transport);
    const done = await ctx.em.transactional(async (tx) => {
      if (!(await consumeSetupLink(tx, hashKey(input.token)))) throw setupLinkInvalid();
      const workspace = await findFirstWorkspace(tx);
      if (!workspace) throw setupLinkInvalid();
      if (await workspaceHasOwner(tx, workspace.workspaceId)) throw workspaceOwned();
      const userId = await createUser(tx, { email: input.email, name: input.name, passwordHash });
      if (userId === undefined) throw accountExists();
      await createMembership(tx, { workspaceId: workspace.workspaceId, userId, role: 'owner' });
      const started = await startSessionIn(ctx, tx, cookie.carrier, { userId, workspaceId: workspace.workspaceId });
      return { userId, workspaceId: workspace.workspaceId, started };
    });
    cookie.flush();
    const account = { userId: done.userId, email: input.email, name: input.name };
    await recordSignedIn(ctx, account, { workspaceId: done.workspaceId, ...done.started }, 'account.setUpOwner');
    return { userId: done.userId, workspaceId: done.workspaceId };
  });
