import { describe, expect, it } from 'vitest';
import { expectProblem, itRejectsEach } from '../assertions.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, storedRole, useTeam } from '../members.ts';
import { signedInPerson } from '../people.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace, team } = useTeam();

const update = (input: InputOf<'members.updateMember'>, rootKey = workspace.rootKey) =>
  api.call('members.updateMember', input, rootKey);
const asPerson = (session: string, input: InputOf<'members.updateMember'>) =>
  callProcedure(api, 'members.updateMember', input, { session });

describe('200', () => {
  it('changes the role, answers data {}, and records the change with the role before and after', async () => {
    const viewer = await team.person('viewer');
    const reply = await update({ userId: viewer.userId, role: 'admin' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await storedRole(api, workspace.workspaceId, viewer.userId)).toBe('admin');
    const [entry] = await auditEntries(api, workspace.workspaceId, 'members.updateMember');
    expect(entry?.resources).toEqual({ userId: viewer.userId });
    expect(entry?.details?.names).toEqual({ userId: viewer.email });
    expect(entry?.details?.changes).toEqual([{ resource: 'userId', field: 'role', before: 'viewer', after: 'admin' }]);
  });

  it("narrows the person's session at their next request", async () => {
    const admin = await team.person('admin');
    const invite = (email: string) =>
      callProcedure(api, 'members.inviteMember', { email, role: 'viewer' }, { session: admin.session });
    expect((await invite('before@example.test')).status).toBe(200);
    await update({ userId: admin.userId, role: 'viewer' });
    expect((await invite('after@example.test')).status).toBe(403);
  });

  it('lets an admin move people among admin, member and viewer, and an owner demote another owner', async () => {
    const admin = await team.person('admin');
    const member = await team.person('member');
    expect((await asPerson(admin.session, { userId: member.userId, role: 'admin' })).status).toBe(200);
    const [first, second] = [await team.person('owner'), await team.person('owner')];
    expect((await asPerson(first.session, { userId: second.userId, role: 'member' })).status).toBe(200);
    expect(await storedRole(api, workspace.workspaceId, second.userId)).toBe('member');
  });

  it('writes nothing when the role stays the same', async () => {
    const viewer = await team.person('viewer');
    expect((await update({ userId: viewer.userId, role: 'viewer' })).status).toBe(200);
    expect(await storedRole(api, workspace.workspaceId, viewer.userId)).toBe('viewer');
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.updateMember', () => workspace.rootKey, [
    [{ role: 'viewer' }, 'body.userId'],
    [{ userId: 'usr_1' }, 'body.role'],
    [{ userId: 'usr_1', role: 'root' }, 'body.role'],
    [{ userId: 'not an id!', role: 'viewer' }, 'body.userId'],
    [{ userId: 'usr_1', role: 'viewer', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members, before looking the member up', async () => {
    await team.expectNeedsManageMembers((rootKey) => update({ userId: 'usr_nobody', role: 'viewer' }, rootKey));
  });

  it('refuses anyone changing their own role', async () => {
    const owner = await team.person('owner');
    await team.person('owner');
    const reply = await asPerson(owner.session, { userId: owner.userId, role: 'admin' });
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('their own role');
  });

  it('refuses an admin demoting an owner or granting owner', async () => {
    const admin = await team.person('admin');
    const owner = await team.person('owner');
    const viewer = await team.person('viewer');
    expect((await asPerson(admin.session, { userId: owner.userId, role: 'viewer' })).status).toBe(403);
    expect((await asPerson(admin.session, { userId: viewer.userId, role: 'owner' })).status).toBe(403);
    expect(await storedRole(api, workspace.workspaceId, owner.userId)).toBe('owner');
    expect(await storedRole(api, workspace.workspaceId, viewer.userId)).toBe('viewer');
  });

  team.itRefusesMembersAndViewers((session, target) => asPerson(session, { userId: target.userId, role: 'viewer' }));
});

describe('404', () => {
  it('answers for someone who is no member', async () => {
    const reply = await update({ userId: 'usr_nobody', role: 'viewer' });
    expectProblem(reply, 404, 'service/data/member_not_found');
    expect(reply.body.error.detail).toBe("The member 'usr_nobody' was not found.");
  });
});

describe('412', () => {
  team.itKeepsTheLastOwner((userId, rootKey) => update({ userId, role: 'admin' }, rootKey));
});

describe('cross-workspace isolation', () => {
  it("answers 404 for another workspace's member and leaves them alone", async () => {
    const other = await api.workspace();
    const theirs = await signedInPerson(api, other.workspaceId, 'viewer');
    expectProblem(await update({ userId: theirs.userId, role: 'admin' }), 404, 'service/data/member_not_found');
    expect(await storedRole(api, other.workspaceId, theirs.userId)).toBe('viewer');
  });
});
