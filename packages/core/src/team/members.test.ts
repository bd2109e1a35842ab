import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { allRootKeyPermissions } from '../permissions.ts';
import { changeMemberRole, type MembershipChangeStore, removeMember } from './members.ts';
import type { MemberManager, Membership } from './roles.ts';

function memoryMemberships(initial: Membership[]) {
  const memberships = initial.map((membership) => ({ ...membership }));
  const writes: string[] = [];
  const store: MembershipChangeStore = {
    async lockMemberships(workspaceId) {
      writes.push(`lock ${workspaceId}`);
      return memberships.map((membership) => ({ ...membership }));
    },
    async setMemberRole(_workspaceId, userId, role) {
      writes.push(`role ${userId} ${role}`);
    },
    async removeMembership(_workspaceId, userId) {
      writes.push(`remove ${userId}`);
    },
  };
  return { store, writes };
}

const owner: MemberManager = { kind: 'user', userId: 'usr_owner', role: 'owner' };
const breakGlass: MemberManager = { kind: 'rootKey', permissions: allRootKeyPermissions() };
const team: Membership[] = [
  { userId: 'usr_owner', role: 'owner' },
  { userId: 'usr_admin', role: 'admin' },
  { userId: 'usr_viewer', role: 'viewer' },
];

describe('changeMemberRole', () => {
  it('writes the new role and answers the previous one', async () => {
    const { store, writes } = memoryMemberships(team);
    const changed = await changeMemberRole(store, {
      workspaceId: 'ws_1',
      manager: owner,
      userId: 'usr_viewer',
      role: 'member',
    });
    expect(changed).toEqual({ previousRole: 'viewer' });
    expect(writes).toEqual(['lock ws_1', 'role usr_viewer member']);
  });

  it('writes nothing when the role stays the same', async () => {
    const { store, writes } = memoryMemberships(team);
    await changeMemberRole(store, { workspaceId: 'ws_1', manager: owner, userId: 'usr_admin', role: 'admin' });
    expect(writes).toEqual(['lock ws_1']);
  });

  it('answers undefined for someone who is not a member', async () => {
    const { store } = memoryMemberships(team);
    expect(
      await changeMemberRole(store, { workspaceId: 'ws_1', manager: owner, userId: 'usr_other', role: 'viewer' }),
    ).toBeUndefined();
  });

  it('counts the owners it locked: the only owner cannot be demoted, even by a root key holding everything', async () => {
    const { store, writes } = memoryMemberships(team);
    await expect(
      changeMemberRole(store, { workspaceId: 'ws_1', manager: breakGlass, userId: 'usr_owner', role: 'admin' }),
    ).rejects.toMatchObject({ status: 412 });
    expect(writes).toEqual(['lock ws_1']);
    const twoOwners = memoryMemberships([...team, { userId: 'usr_second', role: 'owner' }]);
    await changeMemberRole(twoOwners.store, {
      workspaceId: 'ws_1',
      manager: breakGlass,
      userId: 'usr_owner',
      role: 'admin',
    });
    expect(twoOwners.writes).toEqual(['lock ws_1', 'role usr_owner admin']);
  });

  it('refuses an admin demoting an owner, writing nothing', async () => {
    const { store, writes } = memoryMemberships(team);
    const manager: MemberManager = { kind: 'user', userId: 'usr_admin', role: 'admin' };
    await expect(
      changeMemberRole(store, { workspaceId: 'ws_1', manager, userId: 'usr_owner', role: 'viewer' }),
    ).rejects.toMatchObject({ status: 403 });
    expect(writes).toEqual(['lock ws_1']);
  });

  it('refuses a manager without workspace.*.manage_members before reading anything', async () => {
    const { store, writes } = memoryMemberships(team);
    const manager: MemberManager = { kind: 'user', userId: 'usr_viewer', role: 'viewer' };
    await expect(
      changeMemberRole(store, { workspaceId: 'ws_1', manager, userId: 'usr_other', role: 'viewer' }),
    ).rejects.toBeInstanceOf(DomainError);
    expect(writes).toEqual([]);
  });
});

describe('removeMember', () => {
  it('removes a member and answers who it was', async () => {
    const { store, writes } = memoryMemberships(team);
    expect(await removeMember(store, { workspaceId: 'ws_1', manager: owner, userId: 'usr_admin' })).toEqual({
      userId: 'usr_admin',
      role: 'admin',
    });
    expect(writes).toEqual(['lock ws_1', 'remove usr_admin']);
  });

  it('keeps the last owner', async () => {
    const { store, writes } = memoryMemberships(team);
    const manager: MemberManager = { kind: 'rootKey', permissions: ['workspace.*.manage_members', 'api.*.read_api'] };
    await expect(removeMember(store, { workspaceId: 'ws_1', manager, userId: 'usr_owner' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      removeMember(store, { workspaceId: 'ws_1', manager: breakGlass, userId: 'usr_owner' }),
    ).rejects.toMatchObject({ status: 412 });
    expect(writes).not.toContain('remove usr_owner');
  });

  it('answers undefined for someone who is not a member', async () => {
    const { store } = memoryMemberships(team);
    expect(await removeMember(store, { workspaceId: 'ws_1', manager: owner, userId: 'usr_other' })).toBeUndefined();
  });
});
