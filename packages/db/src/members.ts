import { type MembershipChangeStore, newId, type TeamRole } from '@keyplane/core';
import { type EntityManager, sql, typed, unixMs } from './sql.ts';
import { revokeUserSessions } from './userSessions.ts';

export interface UserRecord {
  userId: string;
  email: string;
  name: string;
  /** The argon2id PHC string; null for a person without a password. */
  passwordHash: string | null;
  createdAt: number;
}

export interface MemberRecord {
  userId: string;
  email: string;
  name: string;
  role: TeamRole;
  createdAt: number;
  lastSignInAt: number | null;
}

/** A new account; undefined when the email (whatever its case) has one already. */
export async function createUser(
  em: EntityManager,
  user: { email: string; name: string; passwordHash: string | null },
): Promise<string | undefined> {
  const created = await typed(em)
    .insertInto('users')
    .values({
      id: newId('user'),
      email: user.email,
      name: user.name,
      password_hash: user.passwordHash,
      created_at: sql`now()`,
    })
    .onConflict((conflict) => conflict.expression(sql`lower(email)`).doNothing())
    .returning('id')
    .executeTakeFirst();
  return created?.id;
}

const userColumns = ['id', 'email', 'name', 'password_hash', 'created_at'] as const;

function toUser(row: { id: string; email: string; name: string; password_hash: string | null; created_at: Date }) {
  return {
    userId: row.id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    createdAt: row.created_at.getTime(),
  };
}

/** The account with this email, whatever its case. */
export async function findUserByEmail(em: EntityManager, email: string): Promise<UserRecord | undefined> {
  const found = await typed(em)
    .selectFrom('users')
    .select(userColumns)
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`)
    .executeTakeFirst();
  return found && toUser(found);
}

export async function findUser(em: EntityManager, userId: string): Promise<UserRecord | undefined> {
  const found = await typed(em).selectFrom('users').select(userColumns).where('id', '=', userId).executeTakeFirst();
  return found && toUser(found);
}

/** Sets (null: removes) the account's password hash; false when there is no such account. */
export async function setUserPassword(
  em: EntityManager,
  userId: string,
  passwordHash: string | null,
): Promise<boolean> {
  const result = await typed(em)
    .updateTable('users')
    .set({ password_hash: passwordHash })
    .where('id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Makes the person a member of the workspace with the role; false when they are one already. */
export async function createMembership(
  em: EntityManager,
  membership: { workspaceId: string; userId: string; role: TeamRole },
): Promise<boolean> {
  const created = await typed(em)
    .insertInto('memberships')
    .values({
      workspace_id: membership.workspaceId,
      user_id: membership.userId,
      role: membership.role,
      created_at: sql`now()`,
    })
    .onConflict((conflict) => conflict.columns(['workspace_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return created !== undefined;
}

/** The person's role in the workspace; undefined when they are no member of it. */
export async function findMembership(
  em: EntityManager,
  workspaceId: string,
  userId: string,
): Promise<{ role: TeamRole } | undefined> {
  return typed(em)
    .selectFrom('memberships')
    .select('role')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** The workspace's people, oldest membership first. */
export async function listMembers(em: EntityManager, workspaceId: string): Promise<MemberRecord[]> {
  const found = await typed(em)
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'm.role', 'm.created_at', 'm.last_sign_in_at'])
    .where('m.workspace_id', '=', workspaceId)
    .orderBy('m.created_at')
    .orderBy('u.id')
    .execute();
  return found.map((row) => ({
    userId: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    createdAt: row.created_at.getTime(),
    lastSignInAt: unixMs(row.last_sign_in_at),
  }));
}

/** The workspaces the person belongs to (those not deleted), to switch between them. */
export async function listUserWorkspaces(
  em: EntityManager,
  userId: string,
): Promise<{ workspaceId: string; workspaceName: string; role: TeamRole }[]> {
  const found = await typed(em)
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['w.id', 'w.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .orderBy('w.name')
    .orderBy('w.id')
    .execute();
  return found.map((row) => ({ workspaceId: row.id, workspaceName: row.name, role: row.role }));
}

/** Gives the member another role; false when the workspace has no such member. */
export async function updateMemberRole(
  em: EntityManager,
  workspaceId: string,
  userId: string,
  role: TeamRole,
): Promise<boolean> {
  const result = await typed(em)
    .updateTable('memberships')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes the member and ends their sessions in the workspace; false when there is no such member. */
export async function removeMembership(em: EntityManager, workspaceId: string, userId: string): Promise<boolean> {
  const result = await typed(em)
    .deleteFrom('memberships')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  await revokeUserSessions(em, userId, workspaceId);
  return result.numDeletedRows > 0n;
}

/** Notes a sign-in, for the members screen. */
export async function recordSignIn(em: EntityManager, workspaceId: string, userId: string): Promise<void> {
  await typed(em)
    .updateTable('memberships')
    .set({ last_sign_in_at: sql<Date>`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

/** Changes to a workspace's people on the caller's transaction, as core's rules of authority judge them. */
export function membershipChangeStore(tx: EntityManager): MembershipChangeStore {
  return {
    async lockMemberships(workspaceId) {
      // In one order, so two changes to one workspace wait for each other rather than deadlock.
      const found = await typed(tx)
        .selectFrom('memberships')
        .select(['user_id', 'role'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('user_id')
        .forUpdate()
        .execute();
      return found.map((row) => ({ userId: row.user_id, role: row.role }));
    },
    async setMemberRole(workspaceId, userId, role) {
      await updateMemberRole(tx, workspaceId, userId, role);
    },
    async removeMembership(workspaceId, userId) {
      await removeMembership(tx, workspaceId, userId);
    },
  };
}
