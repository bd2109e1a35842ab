import { newId, type TeamRole } from '@keyplane/core';
import { type EntityManager, sql, typed } from './sql.ts';

export interface UserSessionRecord {
  sessionId: string;
  userId: string;
  workspaceId: string;
  email: string;
  name: string;
  /** The person's role as it is now, read with the session on every request. */
  role: TeamRole;
  createdAt: number;
  lastSeenAt: number;
  idleExpiresAt: number;
  absoluteExpiresAt: number;
  /** The workspace's API rate limit per minute, which a person is held to as a root key is; null: none. */
  apiRequestsPerMinute: number | null;
}

/** `now()` plus a number of milliseconds, in SQL. */
const fromNow = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;

/** Opens a session, idle for at most `idleTimeoutMs` at a time and never past `absoluteExpiresAt`. */
export async function createUserSession(
  em: EntityManager,
  session: { userId: string; workspaceId: string; tokenHash: string; idleTimeoutMs: number; absoluteExpiresAt: number },
): Promise<string> {
  const sessionId = newId('session');
  const absolute = new Date(session.absoluteExpiresAt);
  await typed(em)
    .insertInto('user_sessions')
    .values({
      id: sessionId,
      user_id: session.userId,
      workspace_id: session.workspaceId,
      token_hash: session.tokenHash,
      created_at: sql`now()`,
      last_seen_at: sql`now()`,
      idle_expires_at: sql<Date>`least(${fromNow(session.idleTimeoutMs)}, ${absolute}::timestamptz)`,
      absolute_expires_at: absolute,
    })
    .execute();
  return sessionId;
}

/**
 * The live session with this token hash: not revoked, within both expiries, its person still a
 * member of a workspace that is not deleted. Undefined otherwise.
 */
export async function findUserSession(em: EntityManager, tokenHash: string): Promise<UserSessionRecord | undefined> {
  const found = await typed(em)
    .selectFrom('user_sessions as s')
    .innerJoin('memberships as m', (join) =>
      join.onRef('m.workspace_id', '=', 's.workspace_id').onRef('m.user_id', '=', 's.user_id'),
    )
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .select([
      's.id',
      's.user_id',
      's.workspace_id',
      'u.email',
      'u.name',
      'm.role',
      's.created_at',
      's.last_seen_at',
      's.idle_expires_at',
      's.absolute_expires_at',
      'w.api_requests_per_minute',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.idle_expires_at', '>', sql<Date>`now()`)
    .where('s.absolute_expires_at', '>', sql<Date>`now()`)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  return (
    found && {
      sessionId: found.id,
      userId: found.user_id,
      workspaceId: found.workspace_id,
      email: found.email,
      name: found.name,
      role: found.role,
      createdAt: found.created_at.getTime(),
      lastSeenAt: found.last_seen_at.getTime(),
      idleExpiresAt: found.idle_expires_at.getTime(),
      absoluteExpiresAt: found.absolute_expires_at.getTime(),
      apiRequestsPerMinute: found.api_requests_per_minute ?? null,
    }
  );
}

/** Marks a live session seen now, moving its idle expiry on (never past the absolute one). */
export async function touchUserSession(em: EntityManager, sessionId: string, idleTimeoutMs: number): Promise<void> {
  await typed(em)
    .updateTable('user_sessions')
    .set({
      last_seen_at: sql<Date>`now()`,
      idle_expires_at: sql<Date>`least(${fromNow(idleTimeoutMs)}, absolute_expires_at)`,
    })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .where('idle_expires_at', '>', sql<Date>`now()`)
    .execute();
}

/** The person's live sessions in the workspace, newest first (their settings' "active sessions"). */
export async function listUserSessions(
  em: EntityManager,
  userId: string,
  workspaceId: string,
): Promise<{ sessionId: string; createdAt: number; lastSeenAt: number }[]> {
  const found = await typed(em)
    .selectFrom('user_sessions')
    .select(['id', 'created_at', 'last_seen_at'])
    .where('user_id', '=', userId)
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .where('idle_expires_at', '>', sql<Date>`now()`)
    .where('absolute_expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return found.map((row) => ({
    sessionId: row.id,
    createdAt: row.created_at.getTime(),
    lastSeenAt: row.last_seen_at.getTime(),
  }));
}

/** Ends one session (sign-out), named by its token hash; false when it was not live. */
export async function revokeUserSession(em: EntityManager, tokenHash: string): Promise<boolean> {
  const result = await typed(em)
    .updateTable('user_sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends every session the person has in the workspace, or (no workspace) everywhere: "sign out
 * everywhere", and what removing them or resetting their password does. Answers how many ended.
 */
export async function revokeUserSessions(em: EntityManager, userId: string, workspaceId?: string): Promise<number> {
  let update = typed(em)
    .updateTable('user_sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (workspaceId !== undefined) update = update.where('workspace_id', '=', workspaceId);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
