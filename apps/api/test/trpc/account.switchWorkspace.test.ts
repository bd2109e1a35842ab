import { describe, expect, it } from 'vitest';
import { sessionCookieOf } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { anotherWorkspaceOf, sessionStatus, signedInPerson } from '../people.ts';
import { expectInputNaming } from '../trpcAssertions.ts';

// account.switchWorkspace: a new session in another workspace of theirs; the one it was asked with ends.
const { api, workspace } = useApiWithWorkspace();

const switchWorkspace = (workspaceId: string, session: string) =>
  callProcedure(api, 'account.switchWorkspace', { workspaceId }, { session });

describe('200', () => {
  it('signs the person in to another workspace of theirs with their role there, ending the current session', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const other = await anotherWorkspaceOf(api, person.userId, 'viewer');
    const reply = await switchWorkspace(other.workspaceId, person.session);
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ workspaceId: other.workspaceId });
    const switched = sessionCookieOf(reply);
    const session = await callProcedure(api, 'dashboard.session', undefined, { session: switched });
    expect(session.data).toMatchObject({ workspaceId: other.workspaceId, person: { role: 'viewer' } });
    expect(await sessionStatus(api, person.session)).toBe(401);
  });
});

describe('400', () => {
  it('without a workspace id', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const reply = await callInternal(api, 'account.switchWorkspace', {}, { session: person.session });
    expectInputNaming(reply, 'workspaceId');
  });
});

describe('404', () => {
  it('for a workspace the person is not a member of, or that does not exist, keeping the current session', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const stranger = await api.workspace();
    for (const workspaceId of [stranger.workspaceId, 'ws_does_not_exist']) {
      const reply = await switchWorkspace(workspaceId, person.session);
      expect(reply.status).toBe(404);
      expect(reply.error?.message).toBe(`You are not a member of a workspace '${workspaceId}'.`);
      expect(reply.setCookie).toEqual([]);
    }
    expect(await sessionStatus(api, person.session)).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it('the new session reaches the new workspace only', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const other = await anotherWorkspaceOf(api, person.userId, 'admin');
    const { apiId } = (await callProcedure(api, 'apis.createApi', { name: 'here' }, { rootKey: workspace.rootKey }))
      .data;
    const reply = await switchWorkspace(other.workspaceId, person.session);
    expect((await callInternal(api, 'apis.getApi', { apiId }, { session: sessionCookieOf(reply) })).status).toBe(404);
  });
});
