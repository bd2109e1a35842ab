import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { type Caller, callProcedure } from '../internal.ts';
import { sessionFor, sessionStatus, signedInPerson, TEST_PERSON_PASSWORD } from '../people.ts';
import type { InputOf } from '../procedures.ts';

// account.changePassword: after the current password, ending every other session of theirs.
const { api, workspace } = useApiWithWorkspace();
const NEW_PASSWORD = 'an entirely new passphrase';

const changePassword = (input: InputOf<'account.changePassword'>, caller: Caller) =>
  callProcedure(api, 'account.changePassword', input, caller);

/** A member signed in twice: the session they call with, and another of theirs that a change may end. */
async function memberWithAnotherSession() {
  const person = await signedInPerson(api, workspace.workspaceId, 'member');
  return { person, elsewhere: await sessionFor(api, person.userId, workspace.workspaceId) };
}

describe('200', () => {
  it('sets the new password and ends every other session, in every workspace, but this one', async () => {
    const { person, elsewhere } = await memberWithAnotherSession();
    const reply = await changePassword(
      { currentPassword: TEST_PERSON_PASSWORD, newPassword: NEW_PASSWORD },
      { session: person.session },
    );
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ sessionsEnded: 1 });
    expect(await sessionStatus(api, elsewhere)).toBe(401);
    expect(await sessionStatus(api, person.session)).toBe(200);
    const signIn = (password: string) =>
      callProcedure(api, 'account.signIn', { email: person.email, password }, asBrowser);
    expect((await signIn(NEW_PASSWORD)).status).toBe(200);
  });

  it('lets a person without a password set a first one without a current one', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    await rows(api.em(), sql`update users set password_hash = null where id = ${person.userId}`);
    const reply = await changePassword({ newPassword: NEW_PASSWORD }, { session: person.session });
    expect(reply.status).toBe(200);
    expect((await callProcedure(api, 'account.me', undefined, { session: person.session })).data.hasPassword).toBe(
      true,
    );
  });
});

describe('400', () => {
  it('refuses a new password the policy refuses, naming newPassword and never the password', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const reply = await changePassword(
      { currentPassword: TEST_PERSON_PASSWORD, newPassword: 'qwerty123456' },
      { session: person.session },
    );
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/most commonly used/);
    expect(reply.error?.message).not.toContain('qwerty123456');
  });

  it('asks for the current password when the person has one', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const reply = await changePassword({ newPassword: NEW_PASSWORD }, { session: person.session });
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/^currentPassword is required/);
  });
});

describe('401', () => {
  it('refuses a root key', async () => {
    const reply = await changePassword({ newPassword: NEW_PASSWORD }, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(401);
  });
});

describe('403', () => {
  it('refuses a wrong current password, changing nothing and ending no session', async () => {
    const { person, elsewhere } = await memberWithAnotherSession();
    const reply = await changePassword(
      { currentPassword: 'not the current one', newPassword: NEW_PASSWORD },
      { session: person.session },
    );
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toBe('The current password is wrong.');
    expect(await sessionStatus(api, elsewhere)).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it("changes only the caller's password", async () => {
    const bystander = await signedInPerson(api, workspace.workspaceId, 'owner');
    const caller = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    await changePassword(
      { currentPassword: TEST_PERSON_PASSWORD, newPassword: NEW_PASSWORD },
      { session: caller.session },
    );
    const signIn = await callProcedure(
      api,
      'account.signIn',
      { email: bystander.email, password: TEST_PERSON_PASSWORD },
      asBrowser,
    );
    expect(signIn.status).toBe(200);
  });
});
