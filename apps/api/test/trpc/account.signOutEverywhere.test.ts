import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callProcedure } from '../internal.ts';
import { anotherWorkspaceOf, sessionFor, signedInPerson } from '../people.ts';

// account.signOutEverywhere: every session of the person, in every workspace, ends; the cookie is cleared.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('ends every session of the person in every workspace and clears the cookie', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const other = await anotherWorkspaceOf(api, person.userId, 'viewer');
    const there = await sessionFor(api, person.userId, other.workspaceId);
    const reply = await callProcedure(api, 'account.signOutEverywhere', undefined, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ sessionsEnded: 2 });
    expect(reply.setCookie[0]).toMatch(/^keyplane_session=; Max-Age=0/);
    for (const session of [person.session, there]) {
      expect((await callProcedure(api, 'dashboard.session', undefined, { session })).status).toBe(401);
    }
  });
});

describe('401', () => {
  it('refuses a root key', async () => {
    const reply = await callProcedure(api, 'account.signOutEverywhere', undefined, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(401);
  });
});

describe('cross-workspace isolation', () => {
  it("ends no one else's session", async () => {
    const bystander = await signedInPerson(api, workspace.workspaceId, 'member');
    const caller = await signedInPerson(api, workspace.workspaceId, 'member');
    await callProcedure(api, 'account.signOutEverywhere', undefined, { session: caller.session });
    expect((await callProcedure(api, 'dashboard.session', undefined, { session: bystander.session })).status).toBe(200);
  });
});
