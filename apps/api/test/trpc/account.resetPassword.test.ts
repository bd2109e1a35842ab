import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser, auditOf, newPasswordResetToken, sessionCookieOf } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { sessionFor, signedInPerson, TEST_PERSON_PASSWORD } from '../people.ts';

// account.resetPassword: a reset link an owner or admin issued sets a new password and starts over.
const { api, workspace } = useApiWithWorkspace();
const INVALID = /^This password-reset link is not valid: it was used or has expired\./;
const NEW_PASSWORD = 'the password after the reset';

describe('200', () => {
  it('sets the password, ends every session of the person and signs them in again', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const other = await sessionFor(api, person.userId, workspace.workspaceId);
    const token = await newPasswordResetToken(api, person.userId);
    const reply = await callProcedure(api, 'account.resetPassword', { token, password: NEW_PASSWORD }, asBrowser);
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ userId: person.userId, workspaceId: workspace.workspaceId });
    for (const session of [person.session, other]) {
      expect((await callProcedure(api, 'dashboard.session', undefined, { session })).status).toBe(401);
    }
    expect((await callProcedure(api, 'dashboard.session', undefined, { session: sessionCookieOf(reply) })).status).toBe(
      200,
    );
    const signIn = (password: string) =>
      callProcedure(api, 'account.signIn', { email: person.email, password }, asBrowser);
    expect((await signIn(NEW_PASSWORD)).status).toBe(200);
    expect((await signIn(TEST_PERSON_PASSWORD)).status).toBe(401);
    const [entry] = await auditOf(api, 'account.resetPassword', person.userId);
    expect(entry).toMatchObject({ workspace_id: workspace.workspaceId, actor_user_id: person.userId });
  });
});

describe('400', () => {
  it('refuses a password the policy refuses, leaving the link usable', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const token = await newPasswordResetToken(api, person.userId);
    const reply = await callInternal(api, 'account.resetPassword', { token, password: 'too short' }, asBrowser);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/at least 12 characters/);
    expect(
      (await callProcedure(api, 'account.resetPassword', { token, password: NEW_PASSWORD }, asBrowser)).status,
    ).toBe(200);
  });
});

describe('401', () => {
  it('for an unknown, used or expired link alike, changing nothing', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const used = await newPasswordResetToken(api, person.userId);
    expect(
      (await callProcedure(api, 'account.resetPassword', { token: used, password: NEW_PASSWORD }, asBrowser)).status,
    ).toBe(200);
    const expired = await newPasswordResetToken(api, person.userId, Date.now() - 1000);
    for (const token of ['unknown-token', used, expired]) {
      const reply = await callInternal(
        api,
        'account.resetPassword',
        { token, password: 'yet another passphrase' },
        asBrowser,
      );
      expect(reply.status).toBe(401);
      expect(reply.error?.message).toMatch(INVALID);
      expect(reply.setCookie).toEqual([]);
    }
    expect(
      (await callProcedure(api, 'account.signIn', { email: person.email, password: NEW_PASSWORD }, asBrowser)).status,
    ).toBe(200);
  });
});

describe('403', () => {
  it('refuses a person who belongs to no workspace any more, leaving their password', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const token = await newPasswordResetToken(api, person.userId);
    await rows(api.em(), sql`delete from memberships where user_id = ${person.userId}`);
    const reply = await callInternal(api, 'account.resetPassword', { token, password: NEW_PASSWORD }, asBrowser);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toMatch(/belongs to no workspace/);
  });
});

describe('cross-workspace isolation', () => {
  it("a link resets its own person's password only", async () => {
    const bystander = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    await callProcedure(
      api,
      'account.resetPassword',
      { token: await newPasswordResetToken(api, person.userId), password: NEW_PASSWORD },
      asBrowser,
    );
    expect((await callProcedure(api, 'dashboard.session', undefined, { session: bystander.session })).status).toBe(200);
  });
});
