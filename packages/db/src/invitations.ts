import { newId, type TeamRole } from '@keyplane/core';
import { type EntityManager, sql, typed } from './sql.ts';

export interface InvitationRecord {
  invitationId: string;
  workspaceId: string;
  email: string;
  role: TeamRole;
  invitedByUserId: string | null;
  expiresAt: number;
  createdAt: number;
}

export async function createInvitation(
  em: EntityManager,
  invitation: {
    workspaceId: string;
    email: string;
    role: TeamRole;
    tokenHash: string;
    invitedByUserId: string | null;
    expiresAt: number;
  },
): Promise<string> {
  const invitationId = newId('invitation');
  await typed(em)
    .insertInto('invitations')
    .values({
      id: invitationId,
      workspace_id: invitation.workspaceId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by_user_id: invitation.invitedByUserId,
      expires_at: new Date(invitation.expiresAt),
      created_at: sql`now()`,
    })
    .execute();
  return invitationId;
}

const columns = ['id', 'workspace_id', 'email', 'role', 'invited_by_user_id', 'expires_at', 'created_at'] as const;

function toInvitation(row: {
  id: string;
  workspace_id: string;
  email: string;
  role: TeamRole;
  invited_by_user_id: string | null;
  expires_at: Date;
  created_at: Date;
}): InvitationRecord {
  return {
    invitationId: row.id,
    workspaceId: row.workspace_id,
    email: row.email,
    role: row.role,
    invitedByUserId: row.invited_by_user_id,
    expiresAt: row.expires_at.getTime(),
    createdAt: row.created_at.getTime(),
  };
}

/** The workspace's pending invitations (neither accepted, revoked nor expired), newest first. */
export async function listInvitations(em: EntityManager, workspaceId: string): Promise<InvitationRecord[]> {
  const found = await typed(em)
    .selectFrom('invitations')
    .select(columns)
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('id', 'desc')
    .execute();
  return found.map(toInvitation);
}

/** The pending invitation a link carries, to show before it is accepted; undefined when it is not usable. */
export async function findPendingInvitation(
  em: EntityManager,
  tokenHash: string,
): Promise<InvitationRecord | undefined> {
  const found = await typed(em)
    .selectFrom('invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .select(columns.map((column) => `i.${column}` as const))
    .where('i.token_hash', '=', tokenHash)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', sql<Date>`now()`)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  return found && toInvitation(found);
}

/** Revokes a pending invitation of the workspace; false when it has none by that id. */
export async function revokeInvitation(em: EntityManager, workspaceId: string, invitationId: string): Promise<boolean> {
  const result = await typed(em)
    .updateTable('invitations')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id', '=', invitationId)
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks the invitation a link carries accepted and answers it, or undefined when it is unknown,
 * used, revoked, expired or of a deleted workspace. One statement: of two accepts at once, the
 * second waits on the row and then finds it accepted, so exactly one succeeds.
 */
export async function acceptInvitation(em: EntityManager, tokenHash: string): Promise<InvitationRecord | undefined> {
  const accepted = await typed(em)
    .updateTable('invitations')
    .set({ accepted_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('workspaces as w')
          .select('w.id')
          .whereRef('w.id', '=', 'invitations.workspace_id')
          .where('w.deleted_at', 'is', null),
      ),
    )
    .returning(columns)
    .executeTakeFirst();
  return accepted && toInvitation(accepted);
}
