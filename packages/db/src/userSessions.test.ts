import { bootstrapWorkspace, newSecretToken } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMembership, createUser, updateMemberRole } from './members.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import {
  createUserSession,
  findUserSession,
  listUserSessions,
  revokeUserSession,
  revokeUserSessions,
  touchUserSession,
} from './userSessions.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();
const HOUR = 3_600_000;

async function newWorkspace(): Promise<string> {
  return (await em().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'team' }))).workspaceId;
}

let people = 0;
async function member(workspaceId: string, role: 'owner' | 'viewer' = 'viewer'): Promise<string> {
  const userId = await createUser(em(), { email: `s${++people}@example.com`, name: 'Sam', passwordHash: null });
  if (!userId) throw new Error('email taken');
  await createMembership(em(), { workspaceId, userId, role });
  return userId;
}

async function signIn(
  userId: string,
  workspaceId: string,
  options: { idleTimeoutMs?: number; absolute?: number } = {},
) {
  const { tokenHash } = newSecretToken();
  const sessionId = await createUserSession(em(), {
    userId,
    workspaceId,
    tokenHash,
    idleTimeoutMs: options.idleTimeoutMs ?? HOUR,
    absoluteExpiresAt: options.absolute ?? Date.now() + 12 * HOUR,
  });
  return { sessionId, tokenHash };
}

/** Moves a session's clock back, as if it had been opened and last seen `ms` ago. */
async function age(sessionId: string, ms: number) {
  await rows(
    em(),
    sql`update user_sessions set last_seen_at = last_seen_at - ${ms} * interval '1 millisecond',
                                 idle_expires_at = idle_expires_at - ${ms} * interval '1 millisecond'
        where id = ${sessionId}`,
  );
}

describe('findUserSession', () => {
  it('finds a live session with its person and their role as it is now', async () => {
    const workspaceId = await newWorkspace();
    const userId = await member(workspaceId);
    const { sessionId, tokenHash } = await signIn(userId, workspaceId);
    expect(sessionId).toMatch(/^sess_/);
    expect(await findUserSession(em(), tokenHash)).toMatchObject({
      sessionId,
      userId,
      workspaceId,
      email: expect.stringContaining('@example.com'),
      role: 'viewer',
    });
    await updateMemberRole(em(), workspaceId, userId, 'owner');
    expect((await findUserSession(em(), tokenHash))?.role).toBe('owner');
  });

  it('ends a session idle past its timeout, and one past its absolute expiry', async () => {
    const workspaceId = await newWorkspace();
    const userId = await member(workspaceId);
    const idle = await signIn(userId, workspaceId, { idleTimeoutMs: 60_000 });
    await age(idle.sessionId, 61_000);
    expect(await findUserSession(em(), idle.tokenHash)).toBeUndefined();
    const old = await signIn(userId, workspaceId, { absolute: Date.now() - 1 });
    expect(await findUserSession(em(), old.tokenHash)).toBeUndefined();
  });

  it('moves the idle expiry on with use, never past the absolute one', async () => {
    const workspaceId = await newWorkspace();
    const userId = await member(workspaceId);
    const absolute = Date.now() + 2 * 60_000;
    const { sessionId, tokenHash } = await signIn(userId, workspaceId, { idleTimeoutMs: 60_000, absolute });
    await age(sessionId, 50_000);
    const before = await findUserSession(em(), tokenHash);
    await touchUserSession(em(), sessionId, 60_000);
    const after = await findUserSession(em(), tokenHash);
    expect(after?.idleExpiresAt).toBeGreaterThan((before?.idleExpiresAt ?? 0) + 40_000);
    await touchUserSession(em(), sessionId, 10 * 60_000);
    expect((await findUserSession(em(), tokenHash))?.idleExpiresAt).toBe(absolute);
  });

  it('ends with the person’s membership', async () => {
    const workspaceId = await newWorkspace();
    const userId = await member(workspaceId);
    const { tokenHash } = await signIn(userId, workspaceId);
    await rows(em(), sql`delete from memberships where user_id = ${userId}`);
    expect(await findUserSession(em(), tokenHash)).toBeUndefined();
  });
});

describe('revoking sessions', () => {
  it('signs one session out by its token', async () => {
    const workspaceId = await newWorkspace();
    const userId = await member(workspaceId);
    const [one, two] = [await signIn(userId, workspaceId), await signIn(userId, workspaceId)];
    expect(await revokeUserSession(em(), one.tokenHash)).toBe(true);
    expect(await revokeUserSession(em(), one.tokenHash)).toBe(false);
    expect(await findUserSession(em(), one.tokenHash)).toBeUndefined();
    expect(await findUserSession(em(), two.tokenHash)).toBeDefined();
    expect((await listUserSessions(em(), userId, workspaceId)).map((session) => session.sessionId)).toEqual([
      two.sessionId,
    ]);
  });

  it('ends all of a person’s sessions in one workspace, leaving other people and workspaces alone', async () => {
    const [mine, other] = [await newWorkspace(), await newWorkspace()];
    const userId = await member(mine);
    await createMembership(em(), { workspaceId: other, userId, role: 'viewer' });
    const colleague = await member(mine);
    const [a, b] = [await signIn(userId, mine), await signIn(userId, mine)];
    const elsewhere = await signIn(userId, other);
    const theirs = await signIn(colleague, mine);
    expect(await revokeUserSessions(em(), userId, mine)).toBe(2);
    expect(await findUserSession(em(), a.tokenHash)).toBeUndefined();
    expect(await findUserSession(em(), b.tokenHash)).toBeUndefined();
    expect(await findUserSession(em(), elsewhere.tokenHash)).toBeDefined();
    expect(await findUserSession(em(), theirs.tokenHash)).toBeDefined();
    // Everywhere: "sign out everywhere".
    expect(await revokeUserSessions(em(), userId)).toBe(1);
    expect(await findUserSession(em(), elsewhere.tokenHash)).toBeUndefined();
  });

  it('lists only the person’s own live sessions in the workspace named (cross-workspace isolation)', async () => {
    const [mine, theirs] = [await newWorkspace(), await newWorkspace()];
    const userId = await member(theirs);
    await signIn(userId, theirs);
    expect(await listUserSessions(em(), userId, mine)).toEqual([]);
    expect(await listUserSessions(em(), userId, theirs)).toHaveLength(1);
  });
});
