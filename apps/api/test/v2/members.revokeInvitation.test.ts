import { hashKey, newSecretToken } from '@keyplane/core';
import { createInvitation, findPendingInvitation } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, MANAGE_MEMBERS, tokenOf } from '../members.ts';
import { signedInPerson } from '../people.ts';

const api = useApi();
const workspace = useWorkspace(api);

const invite = async (email: string, rootKey = workspace.rootKey) =>
  (await api.call('members.inviteMember', { email, role: 'viewer' }, rootKey)).body.data;
const revoke = (invitationId: string, rootKey = workspace.rootKey) =>
  api.call('members.revokeInvitation', { invitationId }, rootKey);

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
    const admin = await signedInPerson(api, workspace.workspaceId, 'admin');
    const { invitationId } = await invite('by-admin@example.test');
    expect(
      (await callProcedure(api, 'members.revokeInvitation', { invitationId }, { session: admin.session })).status,
    ).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.revokeInvitation', () => workspace.rootKey, [
    [{}, 'body.invitationId'],
    [{ invitationId: 'x' }, 'body.invitationId'],
    [{ invitationId: 'inv_1', extra: true }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members, and leaves the invitation pending', async () => {
    const { invitationId, url } = await invite('kept@example.test');
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectMissingPermissions(await revoke(invitationId, rootKey), MANAGE_MEMBERS);
    const member = await signedInPerson(api, workspace.workspaceId, 'member');
    expect(
      (await callProcedure(api, 'members.revokeInvitation', { invitationId }, { session: member.session })).status,
    ).toBe(403);
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
    const expired = await createInvitation(api.em(), {
      workspaceId: workspace.workspaceId,
      email: 'expired@example.test',
      role: 'viewer',
      tokenHash: newSecretToken().tokenHash,
      invitedByUserId: null,
      expiresAt: Date.now() - 1,
    });
    notFound(await revoke(expired));
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
