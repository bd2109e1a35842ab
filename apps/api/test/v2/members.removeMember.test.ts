import { findUser } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, MANAGE_MEMBERS, storedRole } from '../members.ts';
import { signedInPerson } from '../people.ts';

const api = useApi();
const workspace = useWorkspace(api);

const remove = (userId: string, rootKey = workspace.rootKey) => api.call('members.removeMember', { userId }, rootKey);
const asPerson = (session: string, userId: string) =>
  callProcedure(api, 'members.removeMember', { userId }, { session });
const person = (role: 'owner' | 'admin' | 'member' | 'viewer') => signedInPerson(api, workspace.workspaceId, role);

describe('200', () => {
  it('removes the person, ends their sessions before answering, and keeps their account', async () => {
    const member = await person('member');
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
    const admin = await person('admin');
    const other = await person('admin');
    expect((await asPerson(admin.session, other.userId)).status).toBe(200);
    const [first, second] = [await person('owner'), await person('owner')];
    expect((await asPerson(first.session, second.userId)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.removeMember', () => workspace.rootKey, [
    [{}, 'body.userId'],
    [{ userId: 'no spaces' }, 'body.userId'],
    [{ userId: 'usr_1', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members', async () => {
    const viewer = await person('viewer');
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectMissingPermissions(await remove(viewer.userId, rootKey), MANAGE_MEMBERS);
    expect(await storedRole(api, workspace.workspaceId, viewer.userId)).toBe('viewer');
  });

  it('refuses removing oneself, and an admin removing an owner', async () => {
    const admin = await person('admin');
    const owner = await person('owner');
    expect((await asPerson(admin.session, admin.userId)).status).toBe(403);
    expect((await asPerson(admin.session, owner.userId)).status).toBe(403);
    expect(await storedRole(api, workspace.workspaceId, owner.userId)).toBe('owner');
  });

  it('refuses members and viewers', async () => {
    const target = await person('viewer');
    for (const role of ['member', 'viewer'] as const) {
      expect((await asPerson((await person(role)).session, target.userId)).status).toBe(403);
    }
  });
});

describe('404', () => {
  it('answers for someone who is no member, or no longer one', async () => {
    expectProblem(await remove('usr_nobody'), 404, 'service/data/member_not_found');
    const viewer = await person('viewer');
    await remove(viewer.userId);
    expectProblem(await remove(viewer.userId), 404, 'service/data/member_not_found');
  });
});

describe('412', () => {
  it('keeps the last owner', async () => {
    const alone = await api.workspace();
    const owner = await signedInPerson(api, alone.workspaceId, 'owner');
    const reply = await api.call('members.removeMember', { userId: owner.userId }, alone.rootKey);
    expectProblem(reply, 412, 'service/application/precondition_failed');
    expect(await storedRole(api, alone.workspaceId, owner.userId)).toBe('owner');
  });
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
