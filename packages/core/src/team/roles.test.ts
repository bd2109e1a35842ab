import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { allRootKeyPermissions, isGrantablePermission, isGranted, parsePermission } from '../permissions.ts';
import {
  isTeamRole,
  MANAGE_MEMBERS,
  type MemberManager,
  requireManagesMembers,
  requireMayChangeRole,
  requireMayGrantRole,
  requireMayRemove,
  requireMayResetPassword,
  rolePermissions,
  standingOf,
  TEAM_ROLES,
  type TeamRole,
} from './roles.ts';

const person = (role: TeamRole, userId = `usr_${role}`): MemberManager => ({ kind: 'user', userId, role });
const rootKey = (permissions: readonly string[]): MemberManager => ({ kind: 'rootKey', permissions });

function refusal(check: () => void): { status: number; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { status: error.status, message: error.message };
  }
}

describe('rolePermissions', () => {
  it('gives owners and admins every permission root keys can hold, including managing people', () => {
    for (const role of ['owner', 'admin'] as const) {
      expect(rolePermissions(role).sort()).toEqual(allRootKeyPermissions().sort());
      expect(rolePermissions(role)).toContain(MANAGE_MEMBERS);
      expect(rolePermissions(role)).toContain('workspace.*.manage_root_keys');
    }
  });

  it('gives members APIs, keys, identities, roles and permissions, rate limits, webhooks, portals and analytics', () => {
    const member = rolePermissions('member');
    for (const permission of [
      'api.*.create_api',
      'api.*.create_key',
      'api.*.decrypt_key',
      'api.*.read_analytics',
      'identity.*.update_identity',
      'rbac.*.create_role',
      'rbac.*.add_permission_to_key',
      'ratelimit.*.set_override',
      'ratelimit.*.read_analytics',
      'webhook.*.create_endpoint',
      'portal.*.create_portal',
      'portal.*.create_portal_session',
      'portal.*.revoke_portal_session',
    ]) {
      expect(member).toContain(permission);
    }
  });

  it('gives members nothing of the workspace: not its people, not its root keys', () => {
    const member = rolePermissions('member');
    expect(member.filter((permission) => permission.startsWith('workspace.'))).toEqual([]);
  });

  it('gives viewers exactly every read, and nothing that changes anything or decrypts a key', () => {
    expect(rolePermissions('viewer').sort()).toEqual(
      [
        'api.*.read_analytics',
        'api.*.read_api',
        'api.*.read_key',
        'identity.*.read_identity',
        'rbac.*.read_permission',
        'rbac.*.read_role',
        'ratelimit.*.read_analytics',
        'ratelimit.*.read_namespace',
        'ratelimit.*.read_override',
        'webhook.*.read_endpoint',
        'portal.*.read_portal',
        'workspace.*.read_audit_log',
        'workspace.*.read_members',
        'workspace.*.read_root_keys',
      ].sort(),
    );
    expect(
      isGranted(rolePermissions('viewer'), { resourceType: 'api', resourceId: 'api_1', action: 'decrypt_key' }),
    ).toBe(false);
  });

  it('writes every permission in the root keys’ grammar, each once', () => {
    for (const role of TEAM_ROLES) {
      const permissions = rolePermissions(role);
      expect(permissions.every(isGrantablePermission)).toBe(true);
      expect(new Set(permissions).size).toBe(permissions.length);
      expect(permissions.every((permission) => parsePermission(permission)?.resourceId === '*')).toBe(true);
    }
  });

  it('nests: each role holds everything the role below it holds, but the workspace reads a member lacks', () => {
    for (let index = 0; index < TEAM_ROLES.length - 1; index++) {
      const [higher, lower] = [TEAM_ROLES[index] as TeamRole, TEAM_ROLES[index + 1] as TeamRole];
      const below = rolePermissions(lower).filter(
        (permission) => higher !== 'member' || !permission.startsWith('workspace.'),
      );
      expect(rolePermissions(higher)).toEqual(expect.arrayContaining(below));
    }
    expect(rolePermissions('viewer').filter((permission) => !rolePermissions('member').includes(permission))).toEqual([
      'workspace.*.read_root_keys',
      'workspace.*.read_audit_log',
      'workspace.*.read_members',
    ]);
  });

  it('hands out copies, so a caller cannot change a role', () => {
    rolePermissions('viewer').push('api.*.delete_api');
    expect(rolePermissions('viewer')).not.toContain('api.*.delete_api');
  });

  it('knows the roles by name', () => {
    expect(TEAM_ROLES.every(isTeamRole)).toBe(true);
    expect(isTeamRole('superuser')).toBe(false);
    expect(isTeamRole('constructor')).toBe(false);
  });
});

describe('standingOf', () => {
  it('is a person’s own role', () => {
    expect(standingOf(person('admin'))).toBe('admin');
  });

  it('counts a root key that held every permission before the workspace reads existed as an owner', () => {
    const before = allRootKeyPermissions().filter(
      (permission) => !/\.read_(root_keys|audit_log|members)$/.test(permission),
    );
    expect(standingOf(rootKey(before))).toBe('owner');
  });

  it('is, for a root key, the highest role whose every permission it holds', () => {
    expect(standingOf(rootKey(allRootKeyPermissions()))).toBe('owner');
    expect(standingOf(rootKey(rolePermissions('member')))).toBe('member');
    expect(standingOf(rootKey([...rolePermissions('viewer'), MANAGE_MEMBERS, 'api.*.create_key']))).toBe('viewer');
    expect(standingOf(rootKey([MANAGE_MEMBERS]))).toBeUndefined();
  });

  it('reads a root key’s instance grants as narrower than a role', () => {
    const narrowed = rolePermissions('viewer').map((permission) => permission.replace('api.*.', 'api.api_1.'));
    expect(standingOf(rootKey(narrowed))).toBeUndefined();
  });
});

describe('requireManagesMembers', () => {
  it('lets owners, admins and root keys holding workspace.*.manage_members manage people', () => {
    expect(refusal(() => requireManagesMembers(person('owner')))).toBeUndefined();
    expect(refusal(() => requireManagesMembers(person('admin')))).toBeUndefined();
    expect(refusal(() => requireManagesMembers(rootKey([MANAGE_MEMBERS])))).toBeUndefined();
  });

  it('refuses members, viewers and other root keys with 403 naming the permission', () => {
    for (const manager of [person('member'), person('viewer'), rootKey(['workspace.*.manage_root_keys'])]) {
      expect(refusal(() => requireManagesMembers(manager))).toEqual({
        status: 403,
        message: "Missing permission: 'workspace.*.manage_members'.",
      });
    }
  });
});

describe('requireMayGrantRole', () => {
  it('lets a manager invite with their own role or any below it', () => {
    expect(refusal(() => requireMayGrantRole(person('owner'), 'owner'))).toBeUndefined();
    expect(refusal(() => requireMayGrantRole(person('admin'), 'admin'))).toBeUndefined();
    expect(refusal(() => requireMayGrantRole(person('admin'), 'viewer'))).toBeUndefined();
  });

  it('refuses a role above their own (an admin cannot make owners)', () => {
    expect(refusal(() => requireMayGrantRole(person('admin'), 'owner'))?.status).toBe(403);
    expect(refusal(() => requireMayGrantRole(person('admin'), 'owner'))?.message).toContain("'owner'");
  });

  it('holds root keys to the role their permissions amount to', () => {
    const viewerManager = rootKey([...rolePermissions('viewer'), MANAGE_MEMBERS]);
    expect(refusal(() => requireMayGrantRole(viewerManager, 'viewer'))).toBeUndefined();
    expect(refusal(() => requireMayGrantRole(viewerManager, 'member'))?.status).toBe(403);
    expect(refusal(() => requireMayGrantRole(rootKey(allRootKeyPermissions()), 'owner'))).toBeUndefined();
    // Managing people alone grants no role at all.
    expect(refusal(() => requireMayGrantRole(rootKey([MANAGE_MEMBERS]), 'viewer'))?.status).toBe(403);
  });

  it('refuses a root key a viewer’s workspace reads it does not hold itself, whatever else it holds', () => {
    const memberManager = rootKey([...rolePermissions('member'), MANAGE_MEMBERS]);
    expect(refusal(() => requireMayGrantRole(memberManager, 'member'))).toBeUndefined();
    expect(refusal(() => requireMayGrantRole(memberManager, 'viewer'))).toEqual({
      status: 403,
      message: expect.stringContaining("'viewer'"),
    });
  });

  it('refuses members and viewers before looking at the role', () => {
    expect(refusal(() => requireMayGrantRole(person('member'), 'viewer'))?.message).toBe(
      "Missing permission: 'workspace.*.manage_members'.",
    );
  });
});

describe('requireMayChangeRole', () => {
  const target = (role: TeamRole, userId = 'usr_target') => ({ userId, role });

  it('lets an owner demote another owner while one owner remains', () => {
    expect(refusal(() => requireMayChangeRole(person('owner'), target('owner'), 'admin', 2))).toBeUndefined();
  });

  it('refuses to demote the last owner (412)', () => {
    const manager = rootKey(allRootKeyPermissions());
    expect(refusal(() => requireMayChangeRole(manager, target('owner'), 'admin', 1))).toEqual({
      status: 412,
      message: expect.stringContaining('at least one owner'),
    });
    // Keeping the role is no demotion.
    expect(refusal(() => requireMayChangeRole(manager, target('owner'), 'owner', 1))).toBeUndefined();
  });

  it('refuses anyone changing their own role, owners included', () => {
    const self = person('owner', 'usr_me');
    expect(refusal(() => requireMayChangeRole(self, target('owner', 'usr_me'), 'admin', 3))).toEqual({
      status: 403,
      message: expect.stringContaining('their own role'),
    });
    const admin = person('admin', 'usr_me');
    expect(refusal(() => requireMayChangeRole(admin, target('admin', 'usr_me'), 'viewer', 1))?.status).toBe(403);
  });

  it('refuses an admin touching an owner, and granting owner', () => {
    expect(refusal(() => requireMayChangeRole(person('admin'), target('owner'), 'viewer', 2))?.message).toContain(
      "'owner'",
    );
    expect(refusal(() => requireMayChangeRole(person('admin'), target('viewer'), 'owner', 1))?.status).toBe(403);
  });

  it('lets an admin move people among admin, member and viewer', () => {
    expect(refusal(() => requireMayChangeRole(person('admin'), target('viewer'), 'admin', 1))).toBeUndefined();
    expect(refusal(() => requireMayChangeRole(person('admin'), target('admin'), 'member', 1))).toBeUndefined();
  });

  it('refuses members and viewers', () => {
    expect(refusal(() => requireMayChangeRole(person('member'), target('viewer'), 'viewer', 1))?.status).toBe(403);
    expect(refusal(() => requireMayChangeRole(person('viewer'), target('viewer'), 'viewer', 1))?.status).toBe(403);
  });
});

describe('requireMayRemove', () => {
  const target = (role: TeamRole, userId = 'usr_target') => ({ userId, role });

  it('removes an owner only while another owner remains', () => {
    expect(refusal(() => requireMayRemove(person('owner'), target('owner'), 2))).toBeUndefined();
    expect(refusal(() => requireMayRemove(rootKey(allRootKeyPermissions()), target('owner'), 1))?.status).toBe(412);
  });

  it('refuses removing oneself, and an admin removing an owner', () => {
    expect(refusal(() => requireMayRemove(person('admin', 'usr_me'), target('admin', 'usr_me'), 1))?.status).toBe(403);
    expect(refusal(() => requireMayRemove(person('admin'), target('owner'), 2))?.status).toBe(403);
  });

  it('lets an admin remove admins, members and viewers', () => {
    for (const role of ['admin', 'member', 'viewer'] as const) {
      expect(refusal(() => requireMayRemove(person('admin'), target(role), 1))).toBeUndefined();
    }
  });
});

describe('requireMayResetPassword', () => {
  const target = (role: TeamRole, userId = 'usr_target') => ({ userId, role });
  it('lets an owner or admin reset someone of at most their own rank', () => {
    expect(refusal(() => requireMayResetPassword(person('admin'), target('admin'), []))).toBeUndefined();
    expect(refusal(() => requireMayResetPassword(person('owner'), target('owner'), []))).toBeUndefined();
    expect(
      refusal(() => requireMayResetPassword(rootKey(allRootKeyPermissions()), target('owner'), [])),
    ).toBeUndefined();
  });
  it('refuses their own account, someone above them, and members and viewers', () => {
    expect(refusal(() => requireMayResetPassword(person('owner', 'usr_me'), target('owner', 'usr_me'), []))).toEqual({
      status: 403,
      message: expect.stringContaining('for themselves'),
    });
    expect(refusal(() => requireMayResetPassword(person('admin'), target('owner'), []))?.message).toContain("'owner'");
    expect(refusal(() => requireMayResetPassword(person('member'), target('viewer'), []))?.message).toBe(
      "Missing permission: 'workspace.*.manage_members'.",
    );
    expect(refusal(() => requireMayResetPassword(rootKey([MANAGE_MEMBERS]), target('viewer'), []))?.status).toBe(403);
  });
  it('refuses when the person belongs to another workspace where the manager does not manage them', () => {
    const elsewhere = (role: TeamRole, managerRole: TeamRole | undefined) => [{ role, managerRole }];
    // A root key belongs to one workspace: a person of another one is out of its reach.
    expect(
      refusal(() =>
        requireMayResetPassword(rootKey(allRootKeyPermissions()), target('viewer'), elsewhere('viewer', undefined)),
      ),
    ).toEqual({ status: 403, message: expect.stringContaining('another workspace') });
    expect(
      refusal(() => requireMayResetPassword(person('admin'), target('viewer'), elsewhere('owner', 'admin')))?.status,
    ).toBe(403);
    expect(
      refusal(() => requireMayResetPassword(person('owner'), target('viewer'), elsewhere('viewer', 'member')))?.status,
    ).toBe(403);
    expect(
      refusal(() => requireMayResetPassword(person('admin'), target('viewer'), elsewhere('admin', 'owner'))),
    ).toBeUndefined();
  });
});
