import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser, newInvitationToken } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';

// account.describeInvitation: what a link invites to, before anyone is signed in.
const { api, workspace } = useApiWithWorkspace();
const INVALID = /^This invitation is not valid: it was used, revoked or has expired\./;

let invited = 0;
const newEmail = () => `invited-${++invited}@example.test`;

describe('200', () => {
  it('answers the email, workspace, role and expiry, and whether the email has an account', async () => {
    const email = newEmail();
    const { token } = await newInvitationToken(api, { workspaceId: workspace.workspaceId, email, role: 'viewer' });
    const reply = await callProcedure(api, 'account.describeInvitation', { token }, asBrowser);
    expect(reply.status).toBe(200);
    const [named] = await rows<{ name: string }>(
      api.em(),
      sql`select name from workspaces where id = ${workspace.workspaceId}`,
    );
    expect(reply.data).toEqual({
      email,
      workspaceName: named?.name,
      role: 'viewer',
      expiresAt: expect.any(Number),
      accountExists: false,
    });
    const person = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    const existing = await newInvitationToken(api, {
      workspaceId: workspace.workspaceId,
      email: person.email.toUpperCase(),
      role: 'member',
    });
    expect(
      (await callProcedure(api, 'account.describeInvitation', { token: existing.token }, asBrowser)).data.accountExists,
    ).toBe(true);
  });
});

describe('400', () => {
  it('without a token', async () => {
    const reply = await callInternal(api, 'account.describeInvitation', {}, asBrowser);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toContain('"token"');
  });
});

describe('401', () => {
  it('for an unknown, expired, revoked or used link alike', async () => {
    const make = () =>
      newInvitationToken(api, { workspaceId: workspace.workspaceId, email: newEmail(), role: 'viewer' });
    const expired = await newInvitationToken(api, {
      workspaceId: workspace.workspaceId,
      email: newEmail(),
      role: 'viewer',
      expiresAt: Date.now() - 1000,
    });
    const revoked = await make();
    await rows(api.em(), sql`update invitations set revoked_at = now() where id = ${revoked.invitationId}`);
    const used = await make();
    await rows(api.em(), sql`update invitations set accepted_at = now() where id = ${used.invitationId}`);
    for (const token of ['unknown-token', expired.token, revoked.token, used.token]) {
      const reply = await callProcedure(api, 'account.describeInvitation', { token }, asBrowser);
      expect(reply.status).toBe(401);
      expect(reply.error?.message).toMatch(INVALID);
    }
  });
});
