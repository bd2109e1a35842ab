import { SIGN_IN_FAILURES_ALLOWED } from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser, auditOf, fromAddress, newAddress, sessionCookieOf } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { anotherWorkspaceOf, signedInPerson, TEST_PERSON_PASSWORD } from '../people.ts';

// account.signIn: a person's email and password for a session cookie, without telling whether an email has an account.
const { api, workspace } = useApiWithWorkspace();
const WRONG = 'The email or password is wrong.';

describe('200', () => {
  it('signs a person in, setting an HTTP-only, SameSite=Lax session cookie, and records it under their name', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member', { email: 'Mixed.Case@Example.test' });
    const reply = await callProcedure(
      api,
      'account.signIn',
      { email: 'mixed.case@example.test', password: TEST_PERSON_PASSWORD },
      asBrowser,
    );
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ userId: person.userId, workspaceId: workspace.workspaceId });
    expect(reply.setCookie[0]).toMatch(
      /^keyplane_session=p\.[\w-]+\.[\w-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const session = await callProcedure(api, 'dashboard.session', undefined, { session: sessionCookieOf(reply) });
    expect(session.data.person).toMatchObject({ userId: person.userId, role: 'member' });
    const [entry] = await auditOf(api, 'account.signIn', person.userId);
    expect(entry).toMatchObject({
      workspace_id: workspace.workspaceId,
      root_key_id: null,
      actor_user_id: person.userId,
      actor_email: person.email,
    });
  });

  it('lands in the workspace the person signed in to last, else in their oldest membership', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const other = await api.workspace();
    await rows(
      api.em(),
      sql`insert into memberships (workspace_id, user_id, role, created_at, last_sign_in_at)
          values (${other.workspaceId}, ${person.userId}, 'admin', now(), now() + interval '1 minute')`,
    );
    const input = { email: person.email, password: TEST_PERSON_PASSWORD };
    expect((await callProcedure(api, 'account.signIn', input, asBrowser)).data.workspaceId).toBe(other.workspaceId);
    await rows(api.em(), sql`update memberships set last_sign_in_at = null where user_id = ${person.userId}`);
    expect((await callProcedure(api, 'account.signIn', input, asBrowser)).data.workspaceId).toBe(workspace.workspaceId);
  });
});

describe('400', () => {
  it.each([
    ['no email', { password: 'x' }, 'email'],
    ['an email that is not one', { email: 'not-an-email', password: 'x' }, 'email'],
    ['no password', { email: 'a@example.test' }, 'password'],
    ['an empty password', { email: 'a@example.test', password: '' }, 'password'],
    ['an unknown field', { email: 'a@example.test', password: 'x', remember: true }, 'remember'],
  ])('for %s', async (_case, input, field) => {
    const reply = await callInternal(api, 'account.signIn', input, asBrowser);
    expect(reply.status).toBe(400);
    // /trpc names the refused field in the schema's issues.
    expect(reply.error?.message).toContain(`"${field}"`);
  });
});

describe('401', () => {
  it('answers an unknown email and a wrong password alike, with no cookie', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'admin');
    const signInFrom = await fromAddress(api, newAddress());
    const unknown = await signInFrom('account.signIn', { email: 'nobody@example.test', password: 'whatever it is' });
    const wrong = await signInFrom('account.signIn', { email: person.email, password: 'whatever it is' });
    for (const reply of [unknown, wrong]) {
      expect(reply.status).toBe(401);
      expect(reply.setCookie).toEqual([]);
    }
    const { requestId: _u, ...unknownData } = unknown.error?.data ?? {};
    const { requestId: _w, ...wrongData } = wrong.error?.data ?? {};
    expect(wrong.error?.message).toBe(WRONG);
    expect(unknown.error?.message).toBe(wrong.error?.message);
    expect(unknownData).toEqual(wrongData);
  });

  it('records a wrong password in every workspace of the account, without the password or an actor', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const other = await anotherWorkspaceOf(api, person.userId, 'viewer');
    const signInFrom = await fromAddress(api, newAddress());
    await signInFrom('account.signIn', { email: person.email, password: 'a guessed password' });
    const entries = await auditOf(api, 'account.signInFailed', person.userId);
    expect(entries.map((entry) => entry.workspace_id).sort()).toEqual(
      [workspace.workspaceId, other.workspaceId].sort(),
    );
    expect(entries.every((entry) => entry.actor_user_id === null && entry.root_key_id === null)).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('a guessed password');
  });

  it('refuses an account without a password (passkeys or SSO only)', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    await rows(api.em(), sql`update users set password_hash = null where id = ${person.userId}`);
    const signInFrom = await fromAddress(api, newAddress());
    const reply = await signInFrom('account.signIn', { email: person.email, password: TEST_PERSON_PASSWORD });
    expect(reply.status).toBe(401);
    expect(reply.error?.message).toBe(WRONG);
  });
});

describe('403', () => {
  it('tells a person with the right password who belongs to no workspace any more', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    await rows(api.em(), sql`delete from memberships where user_id = ${person.userId}`);
    const signInFrom = await fromAddress(api, newAddress());
    const reply = await signInFrom('account.signIn', { email: person.email, password: TEST_PERSON_PASSWORD });
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toMatch(/belongs to no workspace/);
    const wrong = await signInFrom('account.signIn', { email: person.email, password: 'not the password' });
    expect(wrong.status).toBe(401);
  });
});

describe('429', () => {
  const THROTTLED = 'user/too_many_requests/sign_in_throttled';

  it(`refuses an email after ${SIGN_IN_FAILURES_ALLOWED} failures from any addresses, even with the right password`, async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      // Each from an address of its own: only the count per account can refuse.
      const signInFrom = await fromAddress(api, newAddress());
      expect((await signInFrom('account.signIn', { email: person.email, password: `guess ${attempt}` })).status).toBe(
        401,
      );
    }
    const signInFrom = await fromAddress(api, newAddress());
    const refused = await signInFrom('account.signIn', { email: person.email, password: TEST_PERSON_PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.error?.data.type).toBe(THROTTLED);
    expect(refused.error?.message).toMatch(/^Too many failed sign-ins to this email\. Try again in \d+ s\.$/);
    expect(refused.setCookie).toEqual([]);
    // Another account is not touched.
    const other = await signedInPerson(api, workspace.workspaceId, 'member');
    expect((await signInFrom('account.signIn', { email: other.email, password: TEST_PERSON_PASSWORD })).status).toBe(
      200,
    );
  });

  it('counts an email with no account the same, answering the same 429', async () => {
    const answers: number[] = [];
    let last: Awaited<ReturnType<Awaited<ReturnType<typeof fromAddress>>>> | undefined;
    for (let attempt = 0; attempt <= SIGN_IN_FAILURES_ALLOWED; attempt++) {
      const signInFrom = await fromAddress(api, newAddress());
      last = await signInFrom('account.signIn', { email: 'Ghost@example.test', password: `guess ${attempt}` });
      answers.push(last.status);
    }
    expect(answers).toEqual([...Array(SIGN_IN_FAILURES_ALLOWED).fill(401), 429]);
    expect(last?.error?.message).toMatch(/^Too many failed sign-ins to this email\./);
  });

  it('refuses an address after its failures, whichever emails they were for', async () => {
    const signInFrom = await fromAddress(api, newAddress());
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      await signInFrom('account.signIn', { email: `spray-${attempt}@example.test`, password: 'guess' });
    }
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const refused = await signInFrom('account.signIn', { email: person.email, password: TEST_PERSON_PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.error?.message).toMatch(/from this address/);
  });
});

describe('cross-workspace isolation', () => {
  it("a person's session acts only in the workspace it was opened in", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const other = await api.workspace();
    const { apiId } = (await callProcedure(api, 'apis.createApi', { name: 'theirs' }, { rootKey: other.rootKey })).data;
    const reply = await callProcedure(
      api,
      'account.signIn',
      { email: person.email, password: TEST_PERSON_PASSWORD },
      asBrowser,
    );
    const session = sessionCookieOf(reply);
    expect((await callInternal(api, 'apis.getApi', { apiId }, { session })).status).toBe(404);
  });
});

describe('/v2', () => {
  it('does not serve account procedures', async () => {
    expect((await api.post('account.signIn', { email: 'a@example.test', password: 'x' })).status).toBe(404);
  });
});
