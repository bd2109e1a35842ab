import {
  type MemberManager,
  type Membership,
  requireManagesMembers,
  requireMayChangeRole,
  requireMayRemove,
  type TeamRole,
} from './roles.ts';

/** What changing a workspace's people reads and writes, inside one transaction. */
export interface MembershipChangeStore {
  /**
   * Every membership of the workspace, locked until the transaction ends: concurrent changes count
   * the owners one after the other, so two owners demoting each other cannot leave none.
   */
  lockMemberships(workspaceId: string): Promise<Membership[]>;
  setMemberRole(workspaceId: string, userId: string, role: TeamRole): Promise<void>;
  /** Removes the membership and ends the person's sessions in the workspace. */
  removeMembership(workspaceId: string, userId: string): Promise<void>;
}

const ownersAmong = (memberships: readonly Membership[]) =>
  memberships.filter((membership) => membership.role === 'owner').length;

/**
 * Gives a member of the workspace another role; undefined when the workspace has no such member.
 * The rules of authority are `requireMayChangeRole`'s.
 */
export async function changeMemberRole(
  store: MembershipChangeStore,
  request: { workspaceId: string; manager: MemberManager; userId: string; role: TeamRole },
): Promise<{ previousRole: TeamRole } | undefined> {
  requireManagesMembers(request.manager);
  const memberships = await store.lockMemberships(request.workspaceId);
  const target = memberships.find((membership) => membership.userId === request.userId);
  if (!target) return undefined;
  requireMayChangeRole(request.manager, target, request.role, ownersAmong(memberships));
  if (target.role !== request.role) await store.setMemberRole(request.workspaceId, target.userId, request.role);
  return { previousRole: target.role };
}

/** Removes a member from the workspace; undefined when it has no such member. */
export async function removeMember(
  store: MembershipChangeStore,
  request: { workspaceId: string; manager: MemberManager; userId: string },
): Promise<Membership | undefined> {
  requireManagesMembers(request.manager);
  const memberships = await store.lockMemberships(request.workspaceId);
  const target = memberships.find((membership) => membership.userId === request.userId);
  if (!target) return undefined;
  requireMayRemove(request.manager, target, ownersAmong(memberships));
  await store.removeMembership(request.workspaceId, target.userId);
  return target;
}
