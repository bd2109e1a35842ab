import { hashKey } from '@keyplane/core';
import { findPendingInvitation } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../assertions.ts';
import { procedureById } from '../byId.ts';
import { auditEntries, storeExpiredInvitation, tokenOf, useTeam } from '../members.ts';

const { api, workspace, team } = useTeam();

const invite = async (email: string, rootKey = workspace.rootKey) =>
  (await api.call('members.inviteMember', { email, role: 'viewer' }, rootKey)).body.data;
const revoke = procedureById(api, workspace, 'members.revokeInvitation', 'invitationId');

describe('200', () => {
  it('revokes the invitation: its link no longer works, and the audit log names it by its address', async () => {
    const { invitationId, url } = await invite('revoke-me@example.test');
    const reply = await revoke(invitationId);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(url)))).toBeUndefined();
    const [entry] = await auditEntries(api, workspace.workspaceId, 'members.revokeInvitation');
    expect(entry?.resources).toEqual({ invitationId });
    expect(entry?.details).toMatchObject({
      names: { invitationId: 'revoke-me@example.test' },
      changes: [{ resource: 'invitationId', field: 'revoked', before: false, after: true }],
    });
  });

  it('answers an admin signed in to the dashboard', async () => {
    const admin = await team.person('admin');
    const { invitationId } = await invite('by-admin@example.test');
    expect((await revoke.asPerson(admin.session, invitationId)).status).toBe(200);
  });
});

describe('400', () => {
  revoke.itRejectsInput('x', { invitationId: 'inv_1', extra: true });
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members, and leaves the invitation pending', async () => {
    const { invitationId, url } = await invite('kept@example.test');
    await team.expectNeedsManageMembers((rootKey) => revoke(invitationId, rootKey));
    const member = await team.person('member');
    expect((await revoke.asPerson(member.session, invitationId)).status).toBe(403);
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(url)))).toBeDefined();
  });
});

describe('404', () => {
  it('answers for an unknown, an already revoked and an expired invitation', async () => {
    const notFound = (reply: Awaited<ReturnType<typeof revoke>>) =>
      expectProblem(reply, 404, 'service/data/invitation_not_found');
    notFound(await revoke('inv_unknown'));
    const { invitationId } = await invite('twice@example.test');
    await revoke(invitationId);
    const again = await revoke(invitationId);
    notFound(again);
    expect(again.body.error.detail).toBe(`The pending invitation '${invitationId}' was not found.`);
    notFound(await revoke(await storeExpiredInvitation(api, workspace.workspaceId, 'expired@example.test')));
  });
});

describe('cross-workspace isolation', () => {
  it("answers 404 for another workspace's invitation and leaves it pending", async () => {
    const other = await api.workspace();
    const { invitationId, url } = await invite('theirs@example.test', other.rootKey);
    expectProblem(await revoke(invitationId), 404, 'service/data/invitation_not_found');
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(url)))).toBeDefined();
  });
});
