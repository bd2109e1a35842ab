import { findUser } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../assertions.ts';
import { procedureById } from '../byId.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, storedRole, useTeam } from '../members.ts';
import { signedInPerson } from '../people.ts';

const { api, workspace, team } = useTeam();

const remove = procedureById(api, workspace, 'members.removeMember', 'userId');

describe('200', () => {
  it('removes the person, ends their sessions before answering, and keeps their account', async () => {
    const member = await team.person('member');
    expect((await callProcedure(api, 'apis.listApis', {}, { session: member.session })).status).toBe(200);
    const reply = await remove(member.userId);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await storedRole(api, workspace.workspaceId, member.userId)).toBeUndefined();
    expect((await callProcedure(api, 'apis.listApis', {}, { session: member.session })).status).toBe(401);
    expect(await findUser(api.em(), member.userId)).toMatchObject({ email: member.email });
    const [entry] = await auditEntries(api, workspace.workspaceId, 'members.removeMember');
    expect(entry?.details?.names).toEqual({ userId: member.email });
  });

  it('lets an admin remove an admin, and an owner another owner', async () => {
    const admin = await team.person('admin');
    const other = await team.person('admin');
    expect((await remove.asPerson(admin.session, other.userId)).status).toBe(200);
    const [first, second] = [await team.person('owner'), await team.person('owner')];
    expect((await remove.asPerson(first.session, second.userId)).status).toBe(200);
  });
});

describe('400', () => {
  remove.itRejectsInput('no spaces', { userId: 'usr_1', extra: 1 });
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members', async () => {
    const viewer = await team.person('viewer');
    await team.expectNeedsManageMembers((rootKey) => remove(viewer.userId, rootKey));
    expect(await storedRole(api, workspace.workspaceId, viewer.userId)).toBe('viewer');
  });

  it('refuses removing oneself, and an admin removing an owner', async () => {
    const admin = await team.person('admin');
    const owner = await team.person('owner');
    expect((await remove.asPerson(admin.session, admin.userId)).status).toBe(403);
    expect((await remove.asPerson(admin.session, owner.userId)).status).toBe(403);
    expect(await storedRole(api, workspace.workspaceId, owner.userId)).toBe('owner');
  });

  team.itRefusesMembersAndViewers((session, target) => remove.asPerson(session, target.userId));
});

describe('404', () => {
  it('answers for someone who is no member, or no longer one', async () => {
    expectProblem(await remove('usr_nobody'), 404, 'service/data/member_not_found');
    const viewer = await team.person('viewer');
    await remove(viewer.userId);
    expectProblem(await remove(viewer.userId), 404, 'service/data/member_not_found');
  });
});

describe('412', () => {
  team.itKeepsTheLastOwner((userId, rootKey) => remove(userId, rootKey));
});

describe('cross-workspace isolation', () => {
  it("answers 404 for another workspace's member and leaves them and their session alone", async () => {
    const other = await api.workspace();
    const theirs = await signedInPerson(api, other.workspaceId, 'viewer');
    expectProblem(await remove(theirs.userId), 404, 'service/data/member_not_found');
    expect(await storedRole(api, other.workspaceId, theirs.userId)).toBe('viewer');
    expect((await callProcedure(api, 'apis.listApis', {}, { session: theirs.session })).status).toBe(200);
  });
});
