import { describe, expect, it } from 'vitest';
import { expectInvalidInput } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { itRejectsPaging } from '../lists.ts';
import { itNeedsReadMembers } from '../members.ts';
import { signedInPerson } from '../people.ts';

const api = useApi();
// For the cases that need no people of their own; the others make a workspace each, to count its people.
const workspace = useWorkspace(api);

describe('200', () => {
  it("lists the workspace's people with their role and last sign-in, in pages", async () => {
    const workspace = await api.workspace();
    const started = Date.now();
    const owner = await signedInPerson(api, workspace.workspaceId, 'owner', { email: 'o@example.test', name: 'Olga' });
    const viewer = await signedInPerson(api, workspace.workspaceId, 'viewer', { email: 'v@example.test', name: 'Vic' });
    const reply = await api.call('members.listMembers', {}, workspace.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.pagination).toEqual({ hasMore: false });
    expect(reply.body.data).toEqual([
      { userId: owner.userId, email: 'o@example.test', name: 'Olga', role: 'owner', lastSignInAt: expect.any(Number) },
      { userId: viewer.userId, email: 'v@example.test', name: 'Vic', role: 'viewer', lastSignInAt: expect.any(Number) },
    ]);
    expect(reply.body.data[0]?.lastSignInAt).toBeGreaterThanOrEqual(started - 1000);

    const first = await api.call('members.listMembers', { limit: 1 }, workspace.rootKey);
    expect(first.body.data.map((member) => member.userId)).toEqual([owner.userId]);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await api.call(
      'members.listMembers',
      { limit: 1, cursor: first.body.pagination.cursor },
      workspace.rootKey,
    );
    expect(second.body.data.map((member) => member.userId)).toEqual([viewer.userId]);
    expect(second.body.pagination).toEqual({ hasMore: false });
  });

  it('answers an owner or admin signed in to the dashboard', async () => {
    const workspace = await api.workspace();
    const admin = await signedInPerson(api, workspace.workspaceId, 'admin');
    const reply = await callProcedure(api, 'members.listMembers', {}, { session: admin.session });
    expect(reply.status).toBe(200);
    expect(reply.data.data.map((member) => member.userId)).toEqual([admin.userId]);
  });
});

describe('400', () => {
  itRejectsPaging(api, 'members.listMembers', () => workspace.rootKey, { more: [[{ search: 'x' }, 'body.search']] });
  it('refuses a cursor that is no cursor of this list', async () => {
    expectInvalidInput(await api.post('members.listMembers', { cursor: 'bm9wZQ' }, workspace.rootKey), 'body.cursor');
  });
});

describe('403', () => {
  itNeedsReadMembers(api, 'members.listMembers', ['api.*.read_api', 'workspace.*.manage_root_keys']);
});

describe('cross-workspace isolation', () => {
  it("lists only the caller's workspace, and refuses another workspace's cursor", async () => {
    const [a, b] = [await api.workspace(), await api.workspace()];
    const [inA] = [
      await signedInPerson(api, a.workspaceId, 'owner'),
      await signedInPerson(api, a.workspaceId, 'viewer'),
    ];
    const inB = await signedInPerson(api, b.workspaceId, 'owner');
    const listedB = await api.call('members.listMembers', {}, b.rootKey);
    expect(listedB.body.data.map((member) => member.userId)).toEqual([inB.userId]);
    const pageOfA = await api.call('members.listMembers', { limit: 1 }, a.rootKey);
    expect(pageOfA.body.data.map((member) => member.userId)).toEqual([inA?.userId]);
    expectInvalidInput(
      await api.post('members.listMembers', { cursor: pageOfA.body.pagination.cursor }, b.rootKey),
      'body.cursor',
    );
  });
});
