import { allRootKeyPermissions, changeMemberRole, removeMember } from '@keyplane/core';
import { membershipChangeStore } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { type Caller, callInternal } from '../internal.ts';
import { signedInPerson } from '../people.ts';
import { useOtherServerProcess } from '../secondNode.ts';

// Removing a person or narrowing their role holds on every node from the moment it commits: a
// person's session is read from the database on every request, with their role as it is now
// (packages/procedures/src/middleware/auth.ts). Here the change is made by this file's server and
// the person's next request goes to a second server process on the same database.

const { api, workspace } = useApiWithWorkspace();
/** `/trpc` of the other process, as the dashboard in a browser would reach it. */
const onOtherNode = useOtherServerProcess(api);

// Who changes the membership: a root key with every permission, as core's rules judge one.
const manager = { kind: 'rootKey', permissions: allRootKeyPermissions() } as const;

const remove = (userId: string) =>
  api
    .em()
    .transactional((tx) =>
      removeMember(membershipChangeStore(tx), { workspaceId: workspace.workspaceId, manager, userId }),
    );
const changeRole = (userId: string, role: 'viewer') =>
  api
    .em()
    .transactional((tx) =>
      changeMemberRole(membershipChangeStore(tx), { workspaceId: workspace.workspaceId, manager, userId, role }),
    );

describe('401', () => {
  it("a removed person's next request on the other server process", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'admin');
    const caller: Caller = { session: person.session };
    expect((await callInternal(onOtherNode, 'apis.listApis', {}, caller)).status).toBe(200);
    expect(await remove(person.userId)).toMatchObject({ userId: person.userId, role: 'admin' });
    const reply = await callInternal(onOtherNode, 'apis.listApis', {}, caller);
    expect(reply.status).toBe(401);
    expect(reply.error?.message).toMatch(/session has ended/);
    // Nor a change: refused before anything is done.
    expect((await callInternal(onOtherNode, 'apis.createApi', { name: 'after-removal' }, caller)).status).toBe(401);
    expect((await callInternal(api, 'apis.listApis', {}, caller)).status).toBe(401);
  });
});

describe('403', () => {
  it('an admin made viewer: their next change on the other server process, while they still read', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'admin');
    const caller: Caller = { session: person.session };
    expect((await callInternal(onOtherNode, 'apis.createApi', { name: 'as-admin' }, caller)).status).toBe(200);
    expect(await changeRole(person.userId, 'viewer')).toEqual({ previousRole: 'admin' });
    const refused = await callInternal(onOtherNode, 'apis.createApi', { name: 'as-viewer' }, caller);
    expect(refused.status).toBe(403);
    expect(refused.error?.message).toContain('api.*.create_api');
    expect(
      (await callInternal(onOtherNode, 'rootKeys.createRootKey', { permissions: ['api.*.read_api'] }, caller)).status,
    ).toBe(403);
    const session = await callInternal<{ person: { role: string } }>(
      onOtherNode,
      'dashboard.session',
      undefined,
      caller,
    );
    expect(session.status).toBe(200);
    expect(session.data.person.role).toBe('viewer');
  });
});
