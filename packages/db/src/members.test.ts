import { bootstrapWorkspace, changeMemberRole, DomainError, type MemberManager, removeMember } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createMembership,
  createUser,
  findMembership,
  findUser,
  findUserByEmail,
  listMembers,
  listUserWorkspaces,
  membershipChangeStore,
  recordSignIn,
  removeMembership,
  setUserPassword,
  updateMemberRole,
} from './members.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { createUserSession, findUserSession } from './userSessions.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();

async function newWorkspace(name = 'team'): Promise<string> {
  return (await em().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name }))).workspaceId;
}

let emailCount = 0;
async function newUser(name = 'Ada'): Promise<string> {
  const userId = await createUser(em(), { email: `person${++emailCount}@example.com`, name, passwordHash: null });
  if (!userId) throw new Error('email taken');
  return userId;
}

describe('createUser and findUserByEmail', () => {
  it('keeps the email as written and finds it whatever its case', async () => {
    const userId = await createUser(em(), { email: 'Grace.Hopper@Example.com', name: 'Grace', passwordHash: 'h' });
    expect(userId).toMatch(/^usr_[0-9a-f]{32}$/);
    const found = await findUserByEmail(em(), 'grace.hopper@EXAMPLE.COM');
    expect(found).toMatchObject({ userId, email: 'Grace.Hopper@Example.com', name: 'Grace', passwordHash: 'h' });
    expect(await findUser(em(), userId as string)).toEqual(found);
  });

  it('refuses a second account for the same email in another case (undefined)', async () => {
    await createUser(em(), { email: 'linus@example.com', name: 'Linus', passwordHash: null });
    expect(await createUser(em(), { email: 'LINUS@example.com', name: 'Other', passwordHash: null })).toBeUndefined();
    expect((await findUserByEmail(em(), 'linus@example.com'))?.name).toBe('Linus');
  });

  it('answers undefined for an unknown email', async () => {
    expect(await findUserByEmail(em(), 'nobody@example.com')).toBeUndefined();
  });

  it('sets and removes a password hash', async () => {
    const userId = await newUser();
    expect(await setUserPassword(em(), userId, '$argon2id$…')).toBe(true);
    expect((await findUser(em(), userId))?.passwordHash).toBe('$argon2id$…');
    expect(await setUserPassword(em(), 'usr_missing', 'x')).toBe(false);
  });
});

describe('memberships', () => {
  it('makes a person a member once, and lists the workspace’s people with their roles', async () => {
    const workspaceId = await newWorkspace();
    const [owner, viewer] = [await newUser('Owner'), await newUser('Viewer')];
    expect(await createMembership(em(), { workspaceId, userId: owner, role: 'owner' })).toBe(true);
    expect(await createMembership(em(), { workspaceId, userId: viewer, role: 'viewer' })).toBe(true);
    expect(await createMembership(em(), { workspaceId, userId: viewer, role: 'admin' })).toBe(false);
    await recordSignIn(em(), workspaceId, owner);
    const members = await listMembers(em(), workspaceId);
    expect(members.map(({ userId, role, name }) => ({ userId, role, name }))).toEqual([
      { userId: owner, role: 'owner', name: 'Owner' },
      { userId: viewer, role: 'viewer', name: 'Viewer' },
    ]);
    expect(members[0]?.lastSignInAt).toBeTypeOf('number');
    expect(members[1]?.lastSignInAt).toBeNull();
  });

  it('lists the workspaces a person belongs to, to switch between them', async () => {
    const [first, second] = [await newWorkspace('alpha'), await newWorkspace('beta')];
    const userId = await newUser();
    await createMembership(em(), { workspaceId: first, userId, role: 'admin' });
    await createMembership(em(), { workspaceId: second, userId, role: 'viewer' });
    expect(await listUserWorkspaces(em(), userId)).toEqual([
      { workspaceId: first, workspaceName: 'alpha', role: 'admin' },
      { workspaceId: second, workspaceName: 'beta', role: 'viewer' },
    ]);
  });

  it('updates and removes only within the workspace named (cross-workspace isolation)', async () => {
    const [mine, theirs] = [await newWorkspace(), await newWorkspace()];
    const userId = await newUser();
    await createMembership(em(), { workspaceId: theirs, userId, role: 'member' });
    expect(await listMembers(em(), mine)).toEqual([]);
    expect(await findMembership(em(), mine, userId)).toBeUndefined();
    expect(await updateMemberRole(em(), mine, userId, 'owner')).toBe(false);
    expect(await removeMembership(em(), mine, userId)).toBe(false);
    expect(await findMembership(em(), theirs, userId)).toEqual({ role: 'member' });
    expect(await updateMemberRole(em(), theirs, userId, 'viewer')).toBe(true);
    expect(await findMembership(em(), theirs, userId)).toEqual({ role: 'viewer' });
  });

  it('ends the person’s sessions in that workspace when removing them, and only there', async () => {
    const [mine, other] = [await newWorkspace(), await newWorkspace()];
    const userId = await newUser();
    await createMembership(em(), { workspaceId: mine, userId, role: 'member' });
    await createMembership(em(), { workspaceId: other, userId, role: 'member' });
    const session = { userId, idleTimeoutMs: 60_000, absoluteExpiresAt: Date.now() + 3_600_000 };
    await createUserSession(em(), { ...session, workspaceId: mine, tokenHash: 'remove-mine' });
    await createUserSession(em(), { ...session, workspaceId: other, tokenHash: 'remove-other' });
    expect(await removeMembership(em(), mine, userId)).toBe(true);
    expect(await findUserSession(em(), 'remove-mine')).toBeUndefined();
    expect((await findUserSession(em(), 'remove-other'))?.workspaceId).toBe(other);
    // Back as a member, the old session stays ended.
    await createMembership(em(), { workspaceId: mine, userId, role: 'member' });
    expect(await findUserSession(em(), 'remove-mine')).toBeUndefined();
  });
});

describe('membershipChangeStore with core’s rules', () => {
  it('lets exactly one of two owners demoting each other at once succeed: the workspace keeps an owner', async () => {
    const workspaceId = await newWorkspace();
    const [first, second] = [await newUser('First'), await newUser('Second')];
    await createMembership(em(), { workspaceId, userId: first, role: 'owner' });
    await createMembership(em(), { workspaceId, userId: second, role: 'owner' });
    const demote = (manager: string, target: string) =>
      em().transactional(async (tx) => {
        const changed = await changeMemberRole(membershipChangeStore(tx), {
          workspaceId,
          manager: { kind: 'user', userId: manager, role: 'owner' },
          userId: target,
          role: 'admin',
        });
        // Holds the locks a moment, so the other change has to wait for this one.
        await tx.getConnection().execute('select pg_sleep(0.2)');
        return changed;
      });
    const outcomes = await Promise.allSettled([demote(first, second), demote(second, first)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ status: 412 });
    const roles = (await listMembers(em(), workspaceId)).map((member) => member.role).sort();
    expect(roles).toEqual(['admin', 'owner']);
  });

  it('removes a member of the workspace, and answers undefined for a member of another one', async () => {
    const [mine, theirs] = [await newWorkspace(), await newWorkspace()];
    const [owner, stranger] = [await newUser(), await newUser()];
    await createMembership(em(), { workspaceId: mine, userId: owner, role: 'owner' });
    await createMembership(em(), { workspaceId: theirs, userId: stranger, role: 'viewer' });
    const manager: MemberManager = { kind: 'user', userId: owner, role: 'owner' };
    const remove = (userId: string) =>
      em().transactional((tx) => removeMember(membershipChangeStore(tx), { workspaceId: mine, manager, userId }));
    expect(await remove(stranger)).toBeUndefined();
    expect(await findMembership(em(), theirs, stranger)).toEqual({ role: 'viewer' });
    // The only owner removing themselves is refused, and nothing changes.
    await expect(remove(owner)).rejects.toBeInstanceOf(DomainError);
    expect(await findMembership(em(), mine, owner)).toEqual({ role: 'owner' });
  });
});
