import type { InvitationEmail, InvitationMailer } from '@keyplane/procedures';
import { createTransport } from 'nodemailer';

/** How long a send may take in each of its steps before it counts as failed (the inviter still has the link). */
const SMTP_TIMEOUT_MS = 10_000;

/**
 * Sends invitation emails through the SMTP server of `SMTP_URL` (`smtp://user:pass@host:587`,
 * `smtps://…` for TLS from the first byte), from `SMTP_FROM`. The link is the email's only secret.
 */
export function createInvitationMailer(options: { smtpUrl: string; from: string }): InvitationMailer & {
  close(): void;
} {
  const transport = createTransport(
    {
      url: options.smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    },
    { from: options.from },
  );
  return {
    async sendInvitation(email) {
      await transport.sendMail({ to: email.to, ...invitationMessage(email) });
    },
    close() {
      transport.close();
    },
  };
}

/** The email's subject and text: who invited whom to which workspace, with what role, until when. */
export function invitationMessage(email: InvitationEmail): { subject: string; text: string } {
  const inviter = email.invitedBy ?? 'An administrator';
  const expires = new Date(email.expiresAt).toUTCString();
  return {
    subject: `You are invited to ${email.workspaceName} on Keyplane`,
    text: [
      `${inviter} invited you to the workspace ${email.workspaceName} on Keyplane, as ${email.role}.`,
      '',
      'Open this link to accept the invitation (it works once, and until ' + `${expires}):`,
      '',
      email.url,
      '',
      'If you did not expect this invitation, ignore this email: nothing happens unless the link is opened.',
    ].join('\n'),
  };
}
