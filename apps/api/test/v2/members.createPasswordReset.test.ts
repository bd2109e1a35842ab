import { hashKey, PASSWORD_RESET_LIFETIME_MS } from '@keyplane/core';
import { consumePasswordReset, createMembership } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, expectLink, expectNotRecorded, MANAGE_MEMBERS, tokenOf } from '../members.ts';
import { signedInPerson } from '../people.ts';

const api = useApi();
const workspace = useWorkspace(api);

const reset = (userId: string, rootKey = workspace.rootKey) =>
  api.call('members.createPasswordReset', { userId }, rootKey);
const asPerson = (session: string, userId: string) =>
  callProcedure(api, 'members.createPasswordReset', { userId }, { session });
const person = (role: 'owner' | 'admin' | 'member' | 'viewer') => signedInPerson(api, workspace.workspaceId, role);

describe('200', () => {
  it('answers a single-use link for the account, valid 24 hours, stored only as its hash and never audited', async () => {
    const member = await person('member');
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
    const viewer = await person('viewer');
    const first = await reset(viewer.userId);
    const second = await reset(viewer.userId);
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(first.body.data.url)))).toBeUndefined();
    expect(await consumePasswordReset(api.em(), hashKey(tokenOf(second.body.data.url)))).toEqual({
      userId: viewer.userId,
    });
  });

  it('lets an admin reset an admin, and an owner reset someone who is in another workspace where they are owner too', async () => {
    const admin = await person('admin');
    const other = await person('admin');
    expect((await asPerson(admin.session, other.userId)).status).toBe(200);
    const owner = await person('owner');
    const elsewhere = await api.workspace();
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: owner.userId, role: 'owner' });
    const member = await person('member');
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: member.userId, role: 'admin' });
    expect((await asPerson(owner.session, member.userId)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.createPasswordReset', () => workspace.rootKey, [
    [{}, 'body.userId'],
    [{ userId: '' }, 'body.userId'],
    [{ userId: 'usr_1', password: 'x' }, 'body.password'],
  ]);
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members', async () => {
    const viewer = await person('viewer');
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectMissingPermissions(await reset(viewer.userId, rootKey), MANAGE_MEMBERS);
  });

  it('refuses one’s own account, and an admin resetting an owner', async () => {
    const admin = await person('admin');
    const own = await asPerson(admin.session, admin.userId);
    expect(own.status).toBe(403);
    expect(own.error?.message).toContain('for themselves');
    const owner = await person('owner');
    const above = await asPerson(admin.session, owner.userId);
    expect(above.status).toBe(403);
    expect(above.error?.message).toContain("'owner'");
  });

  it('refuses members and viewers', async () => {
    const target = await person('viewer');
    for (const role of ['member', 'viewer'] as const) {
      expect((await asPerson((await person(role)).session, target.userId)).status).toBe(403);
    }
  });

  it('refuses a person who also belongs to a workspace the caller does not manage: the password opens it too', async () => {
    const viewer = await person('viewer');
    const elsewhere = await api.workspace();
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: viewer.userId, role: 'owner' });
    const reply = await reset(viewer.userId);
    expectProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.body.error.detail).toContain('another workspace');
    // Nor from there by a person whose rank there is lower than the target's.
    const admin = await person('admin');
    await createMembership(api.em(), { workspaceId: elsewhere.workspaceId, userId: admin.userId, role: 'admin' });
    expect((await asPerson(admin.session, viewer.userId)).status).toBe(403);
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
