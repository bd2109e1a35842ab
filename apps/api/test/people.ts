import { hashPassword, type TeamRole } from '@keyplane/core';
import { createMembership, createUser } from '@keyplane/db';
import { type SessionCarrier, startPersonSession } from '@keyplane/procedures';
import type { Api, TestWorkspace } from './harness.ts';
import { callProcedure } from './internal.ts';

let people = 0;

export interface SignedInPerson {
  userId: string;
  email: string;
  password: string;
  /** The session cookie's value, for `{ session }` callers (internal.ts). */
  session: string;
}

// One hash for every test person: argon2id costs ~50 ms, which a file making dozens would feel.
let passwordHash: Promise<string> | undefined;
export const TEST_PERSON_PASSWORD = 'correct horse battery staple';

/**
 * A person with an account (email, name, the test password) and a membership of the workspace
 * with this role, signed in as the server signs people in (startPersonSession); without going
 * through a sign-in procedure, for tests of what people may do.
 */
export async function signedInPerson(
  api: Pick<Api, 'em' | 'services'>,
  workspaceId: string,
  role: TeamRole,
  options: { email?: string; name?: string } = {},
): Promise<SignedInPerson> {
  people++;
  const email = options.email ?? `person-${people}-${process.pid}@example.test`;
  passwordHash ??= hashPassword(TEST_PERSON_PASSWORD);
  const em = api.em();
  const userId = await createUser(em, {
    email,
    name: options.name ?? `Person ${people}`,
    passwordHash: await passwordHash,
  });
  if (userId === undefined) throw new Error(`an account with ${email} exists already`);
  await createMembership(em, { workspaceId, userId, role });
  const session = await sessionFor(api, userId, workspaceId);
  return { userId, email, password: TEST_PERSON_PASSWORD, session };
}

/** A new workspace in which an existing person is a member with this role: a person in two workspaces. */
export async function anotherWorkspaceOf(
  api: Pick<Api, 'em' | 'workspace'>,
  userId: string,
  role: TeamRole,
): Promise<TestWorkspace> {
  const other = await api.workspace();
  await createMembership(api.em(), { workspaceId: other.workspaceId, userId, role });
  return other;
}

/** A new session of an existing member, as its cookie value. */
export async function sessionFor(
  api: Pick<Api, 'em' | 'services'>,
  userId: string,
  workspaceId: string,
): Promise<string> {
  let cookie: string | undefined;
  const carrier: SessionCarrier = {
    presented: undefined,
    issue(value) {
      cookie = value;
    },
    clear() {},
  };
  await startPersonSession({ em: api.em(), services: api.services }, carrier, { userId, workspaceId });
  if (cookie === undefined) throw new Error('startPersonSession issued no cookie');
  return cookie;
}

/** dashboard.session's status for a session's cookie: 200 while it lets its person in, 401 once it has ended. */
export async function sessionStatus(api: Pick<Api, 'fetch'>, session: string): Promise<number> {
  return (await callProcedure(api, 'dashboard.session', undefined, { session })).status;
}
