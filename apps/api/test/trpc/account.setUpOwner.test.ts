import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { asBrowser, auditOf, newSetupToken, sessionCookieOf } from '../accounts.ts';
import { useApi } from '../harness.ts';
import { callInternal, callProcedure } from '../internal.ts';

// account.setUpOwner: a first-run setup link makes the first person owner of the first workspace.
const api = useApi();
const INVALID = /^This setup link is not valid: it was used or has expired\./;
const PASSWORD = 'a long and uncommon first password';

/** The first workspace: the oldest not deleted, as the bootstrap made it on an empty database. */
async function firstWorkspaceId(): Promise<string> {
  const [first] = await rows<{ id: string }>(
    api.em(),
    sql`select id from workspaces where deleted_at is null order by created_at, id limit 1`,
  );
  return first?.id ?? (await api.workspace()).workspaceId;
}

let owners = 0;
const owner = () => ({ email: `owner-${++owners}@example.test`, name: 'Olga Owner', password: PASSWORD });

/** Leaves the first workspace without an owner, as a fresh install is. */
async function noOwnerYet(): Promise<string> {
  const workspaceId = await firstWorkspaceId();
  await rows(api.em(), sql`delete from memberships where workspace_id = ${workspaceId}`);
  return workspaceId;
}

describe('200', () => {
  it('creates the account, makes it owner of the first workspace and signs it in', async () => {
    const workspaceId = await noOwnerYet();
    const token = await newSetupToken(api);
    const input = { token, ...owner() };
    const reply = await callProcedure(api, 'account.setUpOwner', input, asBrowser);
    expect(reply.status).toBe(200);
    expect(reply.data.workspaceId).toBe(workspaceId);
    const session = await callProcedure(api, 'account.me', undefined, { session: sessionCookieOf(reply) });
    expect(session.data).toMatchObject({
      userId: reply.data.userId,
      email: input.email,
      role: 'owner',
      hasPassword: true,
    });
    const [stored] = await rows<{ password_hash: string }>(
      api.em(),
      sql`select password_hash from users where id = ${reply.data.userId}`,
    );
    expect(stored?.password_hash).toMatch(/^\$argon2id\$/);
    const [entry] = await auditOf(api, 'account.setUpOwner', reply.data.userId);
    expect(entry).toMatchObject({ workspace_id: workspaceId, actor_user_id: reply.data.userId });
  });
});

describe('400', () => {
  it.each([
    ['a short password', { password: 'short' }, /at least 12 characters/],
    ['a common password', { password: 'qwerty123456' }, /most commonly used/],
    ['an email that is not one', { email: 'owner' }, /"email"/],
    ['an empty name', { name: '' }, /"name"/],
  ])('for %s, leaving the link usable', async (_case, change, problem) => {
    await noOwnerYet();
    const token = await newSetupToken(api);
    const refused = await callInternal(api, 'account.setUpOwner', { token, ...owner(), ...change }, asBrowser);
    expect(refused.status).toBe(400);
    expect(refused.error?.message).toMatch(problem);
    expect(refused.error?.message).not.toContain('qwerty123456');
    expect((await callProcedure(api, 'account.setUpOwner', { token, ...owner() }, asBrowser)).status).toBe(200);
  });
});

describe('401', () => {
  it('refuses an unknown, a used and an expired link with one wording, writing nothing', async () => {
    await noOwnerYet();
    const token = await newSetupToken(api);
    expect((await callProcedure(api, 'account.setUpOwner', { token, ...owner() }, asBrowser)).status).toBe(200);
    await noOwnerYet();
    const expired = await newSetupToken(api, Date.now() - 1000);
    const attempts = [token, expired, 'not-a-token-anyone-made'];
    for (const attempt of attempts) {
      const input = { token: attempt, ...owner() };
      const reply = await callInternal(api, 'account.setUpOwner', input, asBrowser);
      expect(reply.status).toBe(401);
      expect(reply.error?.message).toMatch(INVALID);
      expect(reply.setCookie).toEqual([]);
      const made = await rows(api.em(), sql`select id from users where email = ${input.email}`);
      expect(made).toEqual([]);
    }
  });
});

describe('409', () => {
  it('refuses a link once the workspace has an owner, and an email that has an account, leaving the link usable', async () => {
    await noOwnerYet();
    const first = owner();
    expect(
      (await callProcedure(api, 'account.setUpOwner', { token: await newSetupToken(api), ...first }, asBrowser)).status,
    ).toBe(200);
    const token = await newSetupToken(api);
    const owned = await callInternal(api, 'account.setUpOwner', { token, ...owner() }, asBrowser);
    expect(owned.status).toBe(409);
    expect(owned.error?.message).toMatch(/has an owner already/);
    await noOwnerYet();
    const taken = await callInternal(
      api,
      'account.setUpOwner',
      { token, ...owner(), email: first.email.toUpperCase() },
      asBrowser,
    );
    expect(taken.status).toBe(409);
    expect((await callProcedure(api, 'account.setUpOwner', { token, ...owner() }, asBrowser)).status).toBe(200);
  });
});
