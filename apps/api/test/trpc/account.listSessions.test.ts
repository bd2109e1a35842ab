import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callProcedure } from '../internal.ts';
import { sessionFor, signedInPerson } from '../people.ts';

// account.listSessions: the person's live sessions in this workspace, marking the one asking.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('lists the live sessions, newest first, the current one marked', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const newer = await sessionFor(api, person.userId, workspace.workspaceId);
    const reply = await callProcedure(api, 'account.listSessions', undefined, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data).toHaveLength(2);
    expect(reply.data.map((session) => session.current)).toEqual([false, true]);
    expect(reply.data[0]).toEqual({
      sessionId: expect.stringMatching(/^sess_/),
      createdAt: expect.any(Number),
      lastSeenAt: expect.any(Number),
      current: false,
    });
    const fromNewer = await callProcedure(api, 'account.listSessions', undefined, { session: newer });
    expect(fromNewer.data.map((session) => session.current)).toEqual([true, false]);
  });
});

describe('401', () => {
  it('refuses a root key', async () => {
    expect((await callProcedure(api, 'account.listSessions', undefined, { rootKey: workspace.rootKey })).status).toBe(
      401,
    );
  });
});

describe('cross-workspace isolation', () => {
  it("lists none of another person's sessions", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    await signedInPerson(api, workspace.workspaceId, 'viewer');
    const reply = await callProcedure(api, 'account.listSessions', undefined, { session: person.session });
    expect(reply.data).toHaveLength(1);
  });
});
