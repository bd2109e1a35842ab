import { hashKey } from '@keyplane/core';
import { acceptInvitation } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectInvalidInput, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { itNeedsReadMembers, storeExpiredInvitation, tokenOf } from '../members.ts';
import { signedInPerson } from '../people.ts';

const api = useApi();
const workspace = useWorkspace(api);

const list = (rootKey = workspace.rootKey) => api.call('members.listInvitations', {}, rootKey);
const invite = async (email: string, rootKey = workspace.rootKey) =>
  (await api.call('members.inviteMember', { email, role: 'viewer' }, rootKey)).body.data;

describe('200', () => {
  it('lists pending invitations with who invited, never their links; not revoked, expired or accepted ones', async () => {
    const started = Date.now();
    const pending = await invite('pending@example.test');
    const revoked = await invite('revoked@example.test');
    await api.call('members.revokeInvitation', { invitationId: revoked.invitationId }, workspace.rootKey);
    const accepted = await invite('accepted@example.test');
    await acceptInvitation(api.em(), hashKey(tokenOf(accepted.url)));
    await storeExpiredInvitation(api, workspace.workspaceId, 'expired@example.test');
    const admin = await signedInPerson(api, workspace.workspaceId, 'admin', { email: 'inviter@example.test' });
    const byAdmin = await callProcedure(
      api,
      'members.inviteMember',
      { email: 'by-admin@example.test', role: 'member' },
      { session: admin.session },
    );

    const reply = await list();
    expect(reply.status).toBe(200);
    expect(reply.body.pagination).toEqual({ hasMore: false });
    expect(reply.body.data).toEqual([
      {
        invitationId: pending.invitationId,
        email: 'pending@example.test',
        role: 'viewer',
        expiresAt: pending.expiresAt,
        createdAt: expect.any(Number),
        invitedBy: null,
      },
      {
        invitationId: byAdmin.data.invitationId,
        email: 'by-admin@example.test',
        role: 'member',
        expiresAt: byAdmin.data.expiresAt,
        createdAt: expect.any(Number),
        invitedBy: { userId: admin.userId, email: 'inviter@example.test' },
      },
    ]);
    expect(reply.body.data[0]?.createdAt).toBeGreaterThanOrEqual(started - 1000);
    expect(JSON.stringify(reply.body)).not.toContain(tokenOf(pending.url));
  });

  it('pages in creation order', async () => {
    const other = await api.workspace();
    const first = await invite('p1@example.test', other.rootKey);
    const second = await invite('p2@example.test', other.rootKey);
    const page = await api.call('members.listInvitations', { limit: 1 }, other.rootKey);
    expect(page.body.data.map((invitation) => invitation.invitationId)).toEqual([first.invitationId]);
    const next = await api.call(
      'members.listInvitations',
      { limit: 1, cursor: page.body.pagination.cursor },
      other.rootKey,
    );
    expect(next.body.data.map((invitation) => invitation.invitationId)).toEqual([second.invitationId]);
    expect(next.body.pagination.hasMore).toBe(false);
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.listInvitations', () => workspace.rootKey, [
    [{ limit: 0 }, 'body.limit'],
    [{ cursor: 7 }, 'body.cursor'],
    [{ email: 'x@example.test' }, 'body.email'],
  ]);
});

describe('403', () => {
  itNeedsReadMembers(api, 'members.listInvitations', ['api.*.read_api']);
});

describe('cross-workspace isolation', () => {
  it("never lists another workspace's invitations, nor takes its cursor", async () => {
    const [a, b] = [await api.workspace(), await api.workspace()];
    await invite('a1@example.test', a.rootKey);
    await invite('a2@example.test', a.rootKey);
    expect((await list(b.rootKey)).body.data).toEqual([]);
    const pageOfA = await api.call('members.listInvitations', { limit: 1 }, a.rootKey);
    expectInvalidInput(
      await api.post('members.listInvitations', { cursor: pageOfA.body.pagination.cursor }, b.rootKey),
      'body.cursor',
    );
  });
});
