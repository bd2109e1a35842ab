import type { TeamRole } from '@keyplane/core';
import { type EntityManager, typed } from './sql.ts';

/**
 * The workspace a person who signed in without naming one lands in: the one they signed in to
 * last, else the one they joined first; undefined when they belong to none (or only to deleted ones).
 */
export async function findSignInWorkspace(
  em: EntityManager,
  userId: string,
): Promise<{ workspaceId: string; role: TeamRole } | undefined> {
  const found = await typed(em)
    .selectFrom('memberships as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['m.workspace_id', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .orderBy('m.last_sign_in_at', (order) => order.desc().nullsLast())
    .orderBy('m.created_at')
    .orderBy('m.workspace_id')
    .executeTakeFirst();
  return found && { workspaceId: found.workspace_id, role: found.role };
}
