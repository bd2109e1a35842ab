import type { TeamRole } from '@keyplane/core';
import type { PageQuery } from './listing.ts';
import { startingAt } from './listing.ts';
import { type EntityManager, sql, typed, unixMs } from './sql.ts';

// What members.* reads and writes beyond the stores of members.ts and invitations.ts. The lists come
// one page at a time in id order (users by their id, invitations by theirs), as every list of the
// public contract pages (docs/contract.md#lists-and-cursors).

export interface MemberListing {
  id: string;
  email: string;
  name: string;
  role: TeamRole;
  lastSignInAt: number | null;
}

/** A page of the workspace's people, by user id from `fromId` on. */
export async function listMemberPage(
  em: EntityManager,
  workspaceId: string,
  page: Pick<PageQuery, 'fromId' | 'count'>,
): Promise<MemberListing[]> {
  const found = await typed(em)
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.email', 'u.name', 'm.role', 'm.last_sign_in_at'])
    .where('m.workspace_id', '=', workspaceId)
    .where(startingAt('m.user_id', page.fromId))
    .orderBy('m.user_id')
    .limit(page.count)
    .execute();
  return found.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    lastSignInAt: unixMs(row.last_sign_in_at),
  }));
}

export interface InvitationListing {
  id: string;
  email: string;
  role: TeamRole;
  expiresAt: number;
  createdAt: number;
  /** Null when a root key invited, or the inviter's account is gone. */
  invitedBy: { userId: string; email: string } | null;
}

/** A page of the workspace's pending invitations (neither accepted, revoked nor expired), by id. */
export async function listInvitationPage(
  em: EntityManager,
  workspaceId: string,
  page: Pick<PageQuery, 'fromId' | 'count'>,
): Promise<InvitationListing[]> {
  const found = await typed(em)
    .selectFrom('invitations as i')
    .leftJoin('users as u', 'u.id', 'i.invited_by_user_id')
    .select([
      'i.id',
      'i.email',
      'i.role',
      'i.expires_at',
      'i.created_at',
      'u.id as inviter_id',
      'u.email as inviter_email',
    ])
    .where('i.workspace_id', '=', workspaceId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', sql<Date>`now()`)
    .where(startingAt('i.id', page.fromId))
    .orderBy('i.id')
    .limit(page.count)
    .execute();
  return found.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    expiresAt: row.expires_at.getTime(),
    createdAt: row.created_at.getTime(),
    invitedBy:
      row.inviter_id !== null && row.inviter_email !== null
        ? { userId: row.inviter_id, email: row.inviter_email }
        : null,
  }));
}

/** An invitation of the workspace, pending or not (the audit log names it by its email). */
export async function findInvitation(
  em: EntityManager,
  workspaceId: string,
  invitationId: string,
): Promise<{ email: string; role: TeamRole; revoked: boolean; accepted: boolean } | undefined> {
  const found = await typed(em)
    .selectFrom('invitations')
    .select(['email', 'role', 'revoked_at', 'accepted_at'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invitationId)
    .executeTakeFirst();
  return (
    found && {
      email: found.email,
      role: found.role,
      revoked: found.revoked_at !== null,
      accepted: found.accepted_at !== null,
    }
  );
}

/**
 * Holds, until the transaction ends, the right to invite this address (whatever its case) to the
 * workspace: two invitations made at once then replace one another rather than both stay pending.
 */
export async function lockInvitationsTo(tx: EntityManager, workspaceId: string, email: string): Promise<void> {
  const key = `invitation:${workspaceId}:${email.toLowerCase()}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(tx.getKysely());
}

/**
 * Revokes the workspace's pending invitations to this email (whatever its case): a new invitation
 * replaces them, so one link at a time is valid for a person.
 */
export async function revokePendingInvitationsTo(em: EntityManager, workspaceId: string, email: string): Promise<void> {
  await typed(em)
    .updateTable('invitations')
    .set({ revoked_at: sql<Date>`now()` })
    .where('workspace_id', '=', workspaceId)
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}
