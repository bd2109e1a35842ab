import { hashKey, PASSWORD_RESET_LIFETIME_MS } from '@keyplane/core';
import { consumePasswordReset, createMembership } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../assertions.ts';
import { procedureById } from '../byId.ts';
import { auditEntries, expectLink, expectNotRecorded, tokenOf, useTeam } from '../members.ts';
import { signedInPerson } from '../people.ts';

const { api, workspace, team } = useTeam();

const reset = procedureById(api, workspace, 'members.createPasswordReset', 'userId');

describe('200', () => {
  it('answers a single-use link for the account, valid 24 hours, stored only as its hash and never audited', async () => {
    const member = await team.person('member');
    const before = Date.now();
    const reply = await reset(member.userId);
    expect(reply.status).toBe(200);
    const { url, expiresAt } = reply.body.data;
    expectLink(url, api.url, '/dashboard/reset');
    expect(expiresAt).toBeGreaterThanOrEqual(before + PASSWORD_RESET_LIFETIME_MS);
    const entries = await auditEntries(api, workspace.workspaceId, 'members.createPasswordReset');
    expect(entries[0]?.resources).toEqual({ userId: member.userId });
    expectNotRecorded(entries, tokenOf(url));
    expect(JSON.stringify(entries)).not.toContain('/dashboard/reset');
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(url)))).toEqual({ userId: member.userId });
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(url)))).toBeUndefined();
  });

  it('voids the earlier link when a new one is issued', async () => {
    const viewer = await team.person('viewer');
    const first = await reset(viewer.userId);
    const second = await reset(viewer.userId);
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(first.body.data.url)))).toBeUndefined();
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(second.body.data.url)))).toEqual({
      userId: viewer.userId,
    });
  });

  it('lets an admin reset an admin, and an owner reset someone who is in another workspace where they are owner too', async () => {
    const admin = await team.person('admin');
    const other = await team.person('admin');
    expect((await reset.asPerson(admin.session, other.userId)).status).toBe(200);
    const owner = await team.person('owner');
    const elsewhere = await api.workspace();
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: owner.userId, role: 'owner' });
    const member = await team.person('member');
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: member.userId, role: 'admin' });
    expect((await reset.asPerson(owner.session, member.userId)).status).toBe(200);
  });
});

describe('400', () => {
  reset.itRejectsInput('', { userId: 'usr_1', password: 'x' });
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members', async () => {
    const viewer = await team.person('viewer');
    await team.expectNeedsManageMembers((rootKey) => reset(viewer.userId, rootKey));
  });

  it('refuses one’s own account, and an admin resetting an owner', async () => {
    const admin = await team.person('admin');
    const own = await reset.asPerson(admin.session, admin.userId);
    expect(own.status).toBe(403);
    expect(own.error?.message).toContain('for themselves');
    const owner = await team.person('owner');
    const above = await reset.asPerson(admin.session, owner.userId);
    expect(above.status).toBe(403);
    expect(above.error?.message).toContain("'owner'");
  });

  team.itRefusesMembersAndViewers((session, target) => reset.asPerson(session, target.userId));

  it('refuses a person who also belongs to a workspace the caller does not manage: the password opens it too', async () => {
    const viewer = await team.person('viewer');
    const elsewhere = await api.workspace();
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: viewer.userId, role: 'owner' });
    const reply = await reset(viewer.userId);
    expectProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.body.error.detail).toContain('another workspace');
    // Nor from there by a person whose rank there is lower than the target's.
    const admin = await team.person('admin');
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: admin.userId, role: 'admin' });
    expect((await reset.asPerson(admin.session, viewer.userId)).status).toBe(403);
  });
});

describe('404', () => {
  it('answers for someone who is no member', async () => {
    expectProblem(await reset('usr_nobody'), 404, 'service/data/member_not_found');
  });
});

describe('cross-workspace isolation', () => {
  it("answers 404 for another workspace's member", async () => {
    const other = await api.workspace();
    const theirs = await signedInPerson(api, other.workspaceId, 'viewer');
    expectProblem(await reset(theirs.userId), 404, 'service/data/member_not_found');
  });
});
