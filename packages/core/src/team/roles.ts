import {
  forbidden,
  lastOwner,
  memberAboveOwn,
  ownMembershipUnchangeable,
  ownPasswordResetRefused,
  passwordResetAboveOwn,
  passwordResetReachesElsewhere,
  roleAboveOwn,
} from '../errors.ts';
import { allRootKeyPermissions, permissionsNotHeld, type ResourceType, ROOT_KEY_ACTIONS } from '../permissions.ts';

/**
 * A person's role in a workspace, highest first. Roles are lists of root-key permissions, so a
 * person and a root key with the same grants pass the same checks; what only an owner may do is
 * judged by rank (docs/decisions/0018-team-roles-as-permission-lists.md).
 */
export const TEAM_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

export type TeamRole = (typeof TEAM_ROLES)[number];

export const MANAGE_MEMBERS = 'workspace.*.manage_members';

export function isTeamRole(value: string): value is TeamRole {
  return (TEAM_ROLES as readonly string[]).includes(value);
}

// Higher is more: owner 3 … viewer 0.
const rank = (role: TeamRole) => TEAM_ROLES.length - 1 - TEAM_ROLES.indexOf(role);

/**
 * What a member works on: everything but the workspace's own administration (people, root keys),
 * which they do not read either. A viewer reads those, so the roles' lists do not nest there.
 */
const MEMBER_RESOURCE_TYPES: readonly ResourceType[] = ['api', 'identity', 'rbac', 'ratelimit', 'webhook', 'portal'];

const everyAction = (types: readonly ResourceType[], keep: (action: string) => boolean) =>
  types.flatMap((type) =>
    (ROOT_KEY_ACTIONS[type] as readonly string[]).filter(keep).map((action) => `${type}.*.${action}`),
  );

// Derived from the grammar, so a new action reaches the roles it belongs to (core/src/team/roles.test.ts
// lists each role's permissions in full, so the change shows there).
const ROLE_PERMISSIONS: Record<TeamRole, readonly string[]> = {
  // Owner and admin hold the same permissions: what only an owner may do is judged by rank (below).
  owner: allRootKeyPermissions(),
  admin: allRootKeyPermissions(),
  member: everyAction(MEMBER_RESOURCE_TYPES, () => true),
  // Every read and nothing that changes state; `decrypt_key` and `verify_key` are not reads.
  viewer: everyAction(Object.keys(ROOT_KEY_ACTIONS) as ResourceType[], (action) => action.startsWith('read_')),
};

/** The permissions a role grants, as root-key permission strings (`api.*.read_key`). */
export function rolePermissions(role: TeamRole): string[] {
  return [...ROLE_PERMISSIONS[role]];
}

/** Who manages a workspace's people: a signed-in person, or a root key (automation, break-glass). */
export type MemberManager =
  | { kind: 'user'; userId: string; role: TeamRole }
  | { kind: 'rootKey'; permissions: readonly string[] };

/** A membership as a change judges it. */
export interface Membership {
  userId: string;
  role: TeamRole;
}

function grantsOf(manager: MemberManager): readonly string[] {
  return manager.kind === 'user' ? ROLE_PERMISSIONS[manager.role] : manager.permissions;
}

/**
 * The highest role the manager stands as: a person's own role; for a root key, the highest role
 * whose every permission it holds (one holding them all stands as an owner: the break-glass path of
 * a workspace with no owner left). Undefined: not even a viewer's.
 */
export function standingOf(manager: MemberManager): TeamRole | undefined {
  if (manager.kind === 'user') return manager.role;
  return TEAM_ROLES.find((role) => permissionsNotHeld(manager.permissions, ROLE_PERMISSIONS[role]).length === 0);
}

/**
 * Whether the manager stands at `role` or above: a person by rank; a root key by holding every
 * permission of that role, since a member's list lacks the workspace reads a viewer's has.
 */
function outranks(manager: MemberManager, role: TeamRole): boolean {
  if (manager.kind === 'user') return rank(manager.role) >= rank(role);
  return permissionsNotHeld(manager.permissions, ROLE_PERMISSIONS[role]).length === 0;
}

/** 403 unless the manager holds `workspace.*.manage_members`. */
export function requireManagesMembers(manager: MemberManager): void {
  if (permissionsNotHeld(grantsOf(manager), [MANAGE_MEMBERS]).length > 0) throw forbidden([MANAGE_MEMBERS]);
}

/** Inviting someone with `role`: nobody grants a role above their own (403). */
export function requireMayGrantRole(manager: MemberManager, role: TeamRole): void {
  requireManagesMembers(manager);
  if (!outranks(manager, role)) throw roleAboveOwn(role);
}

function requireMayTouch(manager: MemberManager, target: Membership): void {
  requireManagesMembers(manager);
  if (manager.kind === 'user' && manager.userId === target.userId) throw ownMembershipUnchangeable();
  if (!outranks(manager, target.role)) throw memberAboveOwn(target.role);
}

/**
 * Changing `target`'s role to `role`, with `owners` the workspace's owners as counted under the
 * lock the change holds: nobody changes their own role, touches someone above them or grants a
 * role above their own (403); the last owner stays an owner (412).
 */
export function requireMayChangeRole(manager: MemberManager, target: Membership, role: TeamRole, owners: number): void {
  requireMayTouch(manager, target);
  if (!outranks(manager, role)) throw roleAboveOwn(role);
  if (target.role === 'owner' && role !== 'owner' && owners <= 1) throw lastOwner();
}

/** Removing `target` from the workspace: the same rules as changing their role, and the last owner stays. */
export function requireMayRemove(manager: MemberManager, target: Membership, owners: number): void {
  requireMayTouch(manager, target);
  if (target.role === 'owner' && owners <= 1) throw lastOwner();
}

/**
 * Issuing a password reset link for `target`, a member of the manager's workspace: nobody resets
 * their own password this way or someone above them (403). An account is one for every workspace, so
 * the new password opens each workspace the person belongs to: `elsewhere` lists their role in each
 * other one with the manager's role there (undefined: none, always for a root key), and the manager
 * must manage people at their rank in every one of them too.
 */
export function requireMayResetPassword(
  manager: MemberManager,
  target: Membership,
  elsewhere: readonly { role: TeamRole; managerRole: TeamRole | undefined }[],
): void {
  requireManagesMembers(manager);
  if (manager.kind === 'user' && manager.userId === target.userId) throw ownPasswordResetRefused();
  if (!outranks(manager, target.role)) throw passwordResetAboveOwn(target.role);
  for (const { role, managerRole } of elsewhere) {
    const there: MemberManager | undefined =
      manager.kind === 'user' && managerRole !== undefined ? { ...manager, role: managerRole } : undefined;
    const manages = there !== undefined && permissionsNotHeld(grantsOf(there), [MANAGE_MEMBERS]).length === 0;
    if (!there || !manages || !outranks(there, role)) throw passwordResetReachesElsewhere();
  }
}
