import { INVITATION_LIFETIME_MS, newSecretToken, SETUP_LINK_LIFETIME_MS, type TeamRole } from '@keyplane/core';
import { createInvitation, createSetupLink, rows, sql } from '@keyplane/db';
import { onTestFinished } from 'vitest';
import { serveOn } from './appVariants.ts';
import type { Api } from './harness.ts';
import { callInternal, type InternalReply } from './internal.ts';

// The account.* procedures' shared set-ups: signing in as the browser does, links, audit entries.

/** What the dashboard sends before anyone is signed in. */
export const asBrowser = { headers: { 'x-keyplane-dashboard': '1' } };

/** The session cookie's value a reply set; throws when it set none. */
export function sessionCookieOf(reply: InternalReply<unknown>): string {
  const cookie = reply.setCookie.find((header) => header.startsWith('keyplane_session='));
  if (!cookie || cookie.startsWith('keyplane_session=;')) {
    throw new Error(`no session cookie was set: ${reply.status} ${JSON.stringify(reply.error)}`);
  }
  return cookie.slice('keyplane_session='.length).split(';')[0] as string;
}

/**
 * A caller of a procedure from an address of its own, behind a trusted proxy (X-Forwarded-For): the
 * per-address sign-in throttle of one test does not reach another's.
 */
export async function fromAddress(api: Api, address: string) {
  const server = await serveOn(api, { trustProxy: { hops: 1 } });
  onTestFinished(() => server.close());
  return (procedure: string, input: unknown, headers: Record<string, string> = {}) =>
    callInternal(server, procedure, input, {
      headers: { ...asBrowser.headers, 'X-Forwarded-For': address, ...headers },
    });
}

let addresses = 0;
/** A documentation address no other test of this process uses. */
export const newAddress = () => `203.0.113.${++addresses}`;

/** A new first-run setup link's token, stored as `npm start` stores it. */
export async function newSetupToken(api: Pick<Api, 'em'>, expiresAt = Date.now() + SETUP_LINK_LIFETIME_MS) {
  const { token, tokenHash } = newSecretToken();
  await createSetupLink(api.em(), { tokenHash, expiresAt });
  return token;
}

/** A new password-reset link's token for the person, stored as members.createPasswordReset stores it. */
export async function newPasswordResetToken(api: Pick<Api, 'em'>, userId: string, expiresAt = Date.now() + 3600_000) {
  const { token, tokenHash } = newSecretToken();
  await rows(
    api.em(),
    sql`insert into password_resets (id, user_id, token_hash, created_at, expires_at)
        values (${`pwr_${tokenHash.slice(0, 16).replace(/[^A-Za-z0-9]/g, 'x')}`}, ${userId}, ${tokenHash}, now(), ${new Date(expiresAt)})`,
  );
  return token;
}

export interface AuditRow {
  workspace_id: string;
  root_key_id: string | null;
  actor_user_id: string | null;
  actor_email: string | null;
  resources: Record<string, string>;
  details: unknown;
}

/** The audit entries of one event about a person, oldest first. */
export function auditOf(api: Pick<Api, 'em'>, event: string, userId: string): Promise<AuditRow[]> {
  return rows<AuditRow>(
    api.em(),
    sql`select workspace_id, root_key_id, actor_user_id, actor_email, resources, details from audit_events
        where event = ${event} and resources->>'userId' = ${userId} order by time, id`,
  );
}

/** A new invitation's token, stored as members.inviteMember stores it. */
export async function newInvitationToken(
  api: Pick<Api, 'em'>,
  invitation: { workspaceId: string; email: string; role: TeamRole; expiresAt?: number },
) {
  const { token, tokenHash } = newSecretToken();
  const invitationId = await createInvitation(api.em(), {
    ...invitation,
    tokenHash,
    invitedByUserId: null,
    expiresAt: invitation.expiresAt ?? Date.now() + INVITATION_LIFETIME_MS,
  });
  return { token, invitationId };
}
