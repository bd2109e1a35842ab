import type { SignInMembership } from '@keyplane/core';
import { type EntityManager, sql, typed } from './sql.ts';

// What a person's own account reads and writes (packages/procedures/src/routers/account/).

/** The first workspace (the oldest not deleted): the one the bootstrap created, which setup links make an owner of. */
export async function findFirstWorkspace(
  em: EntityManager,
): Promise<{ workspaceId: string; name: string } | undefined> {
  const found = await typed(em)
    .selectFrom('workspaces')
    .select(['id', 'name'])
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return found && { workspaceId: found.id, name: found.name };
}

/** Whether the workspace has at least one owner. */
export async function workspaceHasOwner(em: EntityManager, workspaceId: string): Promise<boolean> {
  const found = await typed(em)
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** The person's memberships of workspaces that are not deleted, as choosing where a sign-in lands sees them. */
export async function listSignInMemberships(em: EntityManager, userId: string): Promise<SignInMembership[]> {
  const found = await typed(em)
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['m.workspace_id', 'm.created_at', 'm.last_sign_in_at'])
    .where('m.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .execute();
  return found.map((row) => ({
    workspaceId: row.workspace_id,
    createdAt: row.created_at.getTime(),
    lastSignInAt: row.last_sign_in_at === null ? null : row.last_sign_in_at.getTime(),
  }));
}

/** Renames the account; false when there is no such account. */
export async function setUserName(em: EntityManager, userId: string, name: string): Promise<boolean> {
  const result = await typed(em).updateTable('users').set({ name }).where('id', '=', userId).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends every live session of the person, in every workspace, but one; answers how many ended. */
export async function revokeUserSessionsExcept(
  em: EntityManager,
  userId: string,
  keptSessionId: string,
): Promise<number> {
  const result = await typed(em)
    .updateTable('user_sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('id', '!=', keptSessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Whether root keys may open the dashboard of this live workspace; undefined when there is none. */
export async function findRootKeySignIn(em: EntityManager, workspaceId: string): Promise<boolean | undefined> {
  const found = await typed(em)
    .selectFrom('workspaces')
    .select('root_key_sign_in')
    .where('id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return found?.root_key_sign_in;
}

/** Allows or refuses root keys opening the dashboard of the workspace; false when there is no such live workspace. */
export async function setRootKeySignIn(em: EntityManager, workspaceId: string, enabled: boolean): Promise<boolean> {
  const result = await typed(em)
    .updateTable('workspaces')
    .set({ root_key_sign_in: enabled })
    .where('id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends one live session by its id; false when it was not live. */
export async function revokeUserSessionById(em: EntityManager, sessionId: string): Promise<boolean> {
  const result = await typed(em)
    .updateTable('user_sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
