import { alreadyMember, INVITATION_LIFETIME_MS, newSecretToken, requireMayGrantRole } from '@keyplane/core';
import {
  createInvitation,
  findMembership,
  findUserByEmail,
  findWorkspace,
  lockInvitationsTo,
  revokePendingInvitationsTo,
} from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { memberManagerOf, type RootKeyPrincipal } from '../../middleware/auth.ts';
import { linkOrigin } from '../../people/sessions.ts';
import type { InvitationEmail } from '../../services.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { emailSchema, teamRoleSchema } from './memberSchemas.ts';

export const inviteMemberInput = z.strictObject({ email: emailSchema, role: teamRoleSchema });

export const inviteMemberOutput = z.object({
  invitationId: z.string(),
  /** The single-use link, shown this once: `<origin>/dashboard/invite#<token>`. */
  url: z.string(),
  expiresAt: z.number(),
  /** Whether the mail server accepted the email with the link; false: none is set up, or it failed. */
  emailed: z.boolean(),
});

/**
 * Invites a person by email with a role no higher than the caller's own (403), unless they are a
 * member already (409). The link carries a token stored only as its hash; a new invitation to the
 * same address replaces a pending one. With a mailer (SMTP_URL) the link is emailed after the
 * invitation commits; a failed send loses nothing: the answer has the link and says `emailed: false`.
 */
export const inviteMember = rootKeyProcedure
  .meta({
    public: true,
    description: 'Invites a person by email with a role; answers the single-use link, emailed when SMTP is set up.',
    errors: [409],
  })
  .input(inviteMemberInput)
  .output(inviteMemberOutput)
  .mutation(async ({ ctx, input }) => {
    const { workspaceId, person } = ctx.rootKey;
    requireMayGrantRole(memberManagerOf(ctx.rootKey), input.role);
    // Before writing anything: a link that cannot be made is a 400 with nothing left behind.
    const origin = linkOrigin(ctx);
    const { token, tokenHash } = newSecretToken();
    const expiresAt = ctx.services.now() + INVITATION_LIFETIME_MS;
    const invitationId = await ctx.em.transactional(async (tx) => {
      // One invitation at a time per address and workspace, also when two are made at once.
      await lockInvitationsTo(tx, workspaceId, input.email);
      const account = await findUserByEmail(tx, input.email);
      if (account && (await findMembership(tx, workspaceId, account.userId))) throw alreadyMember(input.email);
      await revokePendingInvitationsTo(tx, workspaceId, input.email);
      return createInvitation(tx, {
        workspaceId,
        email: input.email,
        role: input.role,
        tokenHash,
        invitedByUserId: person?.userId ?? null,
        expiresAt,
      });
    });
    const url = `${origin}/dashboard/invite#${token}`;
    const emailed = await emailInvitation(ctx, ctx.rootKey, { to: input.email, url, role: input.role, expiresAt });
    return { invitationId, url, expiresAt, emailed };
  });

/** Emails the link when a mailer is set up; a failure is reported (never with the link) and answered as false. */
async function emailInvitation(
  ctx: Context,
  principal: RootKeyPrincipal,
  email: Pick<InvitationEmail, 'to' | 'url' | 'role' | 'expiresAt'>,
): Promise<boolean> {
  const { mailer } = ctx.services.team;
  if (!mailer) return false;
  try {
    const workspace = await findWorkspace(ctx.em, principal.workspaceId);
    const invitedBy = principal.person ? `${principal.person.name} (${principal.person.email})` : null;
    await mailer.sendInvitation({ ...email, workspaceName: workspace?.name ?? principal.workspaceId, invitedBy });
    return true;
  } catch (error) {
    ctx.services.reportError(
      'could not email an invitation; the inviter has its link',
      scrubbed(error, email.url),
      ctx.requestId,
    );
    return false;
  }
}

/** The error as reported, without the link should a mail server have echoed it. */
function scrubbed(error: unknown, url: string): string {
  return String(error instanceof Error ? error.message : error).replaceAll(url, '<link>');
}
