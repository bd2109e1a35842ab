import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser, auditOf, fromAddress, newAddress, newInvitationToken, sessionCookieOf } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { signedInPerson, TEST_PERSON_PASSWORD } from '../people.ts';

// account.acceptInvitation: joins the invited workspace with the invited role, creating the account or proving it.
const { api, workspace } = useApiWithWorkspace();
const INVALID = /^This invitation is not valid: it was used, revoked or has expired\./;
const PASSWORD = 'a fresh and uncommon passphrase';

let invited = 0;
const newEmail = () => `joiner-${++invited}@example.test`;
const invite = (email: string, role: 'admin' | 'member' | 'viewer' = 'viewer') =>
  newInvitationToken(api, { workspaceId: workspace.workspaceId, email, role });

describe('200', () => {
  it('creates the account for a new email, with the invited role, and signs it in there', async () => {
    const email = newEmail();
    const { token, invitationId } = await invite(email, 'member');
    const reply = await callProcedure(
      api,
      'account.acceptInvitation',
      { token, name: 'Nina New', password: PASSWORD },
      asBrowser,
    );
    expect(reply.status).toBe(200);
    expect(reply.data.workspaceId).toBe(workspace.workspaceId);
    const me = await callProcedure(api, 'account.me', undefined, { session: sessionCookieOf(reply) });
    expect(me.data).toMatchObject({ email, name: 'Nina New', role: 'member', workspaceId: workspace.workspaceId });
    const [entry] = await auditOf(api, 'account.acceptInvitation', reply.data.userId);
    expect(entry).toMatchObject({ actor_user_id: reply.data.userId, resources: { invitationId } });
    expect(JSON.stringify(entry)).not.toContain(PASSWORD);
  });

  it('joins an existing account with its password, keeping its other workspaces', async () => {
    const home = await api.workspace();
    const person = await signedInPerson(api, home.workspaceId, 'owner');
    const { token } = await invite(person.email.toUpperCase(), 'admin');
    const reply = await callProcedure(
      api,
      'account.acceptInvitation',
      { token, password: TEST_PERSON_PASSWORD },
      asBrowser,
    );
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ userId: person.userId, workspaceId: workspace.workspaceId });
    const me = await callProcedure(api, 'account.me', undefined, { session: sessionCookieOf(reply) });
    expect(me.data.role).toBe('admin');
    expect(me.data.workspaces).toHaveLength(2);
  });

  it('joins an existing account without its password when the caller is signed in as that person', async () => {
    const person = await signedInPerson(api, (await api.workspace()).workspaceId, 'viewer');
    const { token } = await invite(person.email);
    const reply = await callProcedure(api, 'account.acceptInvitation', { token }, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data.userId).toBe(person.userId);
  });
});

describe('400', () => {
  it.each([
    ['no name for a new account', { password: PASSWORD }, /^name is required/],
    ['no password for a new account', { name: 'N' }, /^password is required/],
    ['a common password', { name: 'N', password: 'qwerty123456' }, /most commonly used/],
  ])('for %s, leaving the link usable', async (_case, input, problem) => {
    const { token } = await invite(newEmail());
    const reply = await callInternal(api, 'account.acceptInvitation', { token, ...input }, asBrowser);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(problem);
    expect((await callProcedure(api, 'account.describeInvitation', { token }, asBrowser)).status).toBe(200);
  });

  it('asks an existing account for its password when the caller is not signed in as it', async () => {
    const person = await signedInPerson(api, (await api.workspace()).workspaceId, 'viewer');
    const stranger = await signedInPerson(api, workspace.workspaceId, 'owner');
    const { token } = await invite(person.email);
    const reply = await callInternal(api, 'account.acceptInvitation', { token }, { session: stranger.session });
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/^password is required: this email has an account/);
  });
});

describe('401', () => {
  it('for an unknown, used, revoked or expired link alike, creating nothing', async () => {
    const used = await invite(newEmail());
    expect(
      (
        await callProcedure(
          api,
          'account.acceptInvitation',
          { token: used.token, name: 'U', password: PASSWORD },
          asBrowser,
        )
      ).status,
    ).toBe(200);
    const revoked = await invite(newEmail());
    await rows(api.em(), sql`update invitations set revoked_at = now() where id = ${revoked.invitationId}`);
    const expired = await newInvitationToken(api, {
      workspaceId: workspace.workspaceId,
      email: newEmail(),
      role: 'viewer',
      expiresAt: Date.now() - 1000,
    });
    const acceptFrom = await fromAddress(api, newAddress());
    for (const token of ['unknown-token', used.token, revoked.token, expired.token]) {
      const reply = await acceptFrom('account.acceptInvitation', { token, name: 'X', password: PASSWORD });
      expect(reply.status).toBe(401);
      expect(reply.error?.message).toMatch(INVALID);
      expect(reply.setCookie).toEqual([]);
    }
  });

  it('refuses a wrong password of an existing account, leaving the link usable', async () => {
    const person = await signedInPerson(api, (await api.workspace()).workspaceId, 'viewer');
    const { token } = await invite(person.email);
    const acceptFrom = await fromAddress(api, newAddress());
    const wrong = await acceptFrom('account.acceptInvitation', { token, password: 'not their password' });
    expect(wrong.status).toBe(401);
    expect(wrong.error?.message).toBe('The email or password is wrong.');
    expect((await acceptFrom('account.acceptInvitation', { token, password: TEST_PERSON_PASSWORD })).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it('joins only the invited workspace', async () => {
    const { token } = await invite(newEmail(), 'admin');
    const reply = await callProcedure(
      api,
      'account.acceptInvitation',
      { token, name: 'I', password: PASSWORD },
      asBrowser,
    );
    const other = await api.workspace();
    const { apiId } = (await callProcedure(api, 'apis.createApi', { name: 'theirs' }, { rootKey: other.rootKey })).data;
    const session = sessionCookieOf(reply);
    expect((await callInternal(api, 'apis.getApi', { apiId }, { session })).status).toBe(404);
    const me = await callProcedure(api, 'account.me', undefined, { session });
    expect(me.data.workspaces.map((listed) => listed.workspaceId)).toEqual([workspace.workspaceId]);
  });
});
