import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';

// A person signed in to their account acts with their role's permissions, through the same checks as a root key.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it("answers who is signed in: the person, their role and the role's permissions", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer', { name: 'Vera Viewer' });
    const reply = await callProcedure(api, 'dashboard.session', undefined, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data).toMatchObject({
      workspaceId: workspace.workspaceId,
      rootKeyId: null,
      person: { userId: person.userId, email: person.email, name: 'Vera Viewer', role: 'viewer' },
    });
    expect(reply.data.permissions).toContain('api.*.read_api');
    expect(reply.data.permissions).not.toContain('api.*.create_api');
  });

  it("records a member's change in the audit log under their name, not a root key's", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const created = await callProcedure(api, 'apis.createApi', { name: 'by-a-person' }, { session: person.session });
    expect(created.status).toBe(200);
    const [entry] = await rows<{ root_key_id: string | null; actor_user_id: string; actor_email: string }>(
      api.em(),
      sql`select root_key_id, actor_user_id, actor_email from audit_events
          where event = 'apis.createApi' and resources->>'apiId' = ${created.data.apiId}`,
    );
    expect(entry).toEqual({ root_key_id: null, actor_user_id: person.userId, actor_email: person.email });
  });
});

describe('401', () => {
  it('refuses a session whose person was removed from the workspace, at their next request', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'admin');
    expect((await callProcedure(api, 'apis.listApis', {}, { session: person.session })).status).toBe(200);
    await rows(api.em(), sql`delete from memberships where user_id = ${person.userId}`);
    const reply = await callProcedure(api, 'apis.listApis', {}, { session: person.session });
    expect(reply.status).toBe(401);
    expect(reply.error?.message).toMatch(/Sign in again/);
  });

  it("refuses a person's cookie with its kind mark removed", async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner');
    const reply = await callProcedure(api, 'dashboard.session', undefined, { session: person.session.slice(2) });
    expect(reply.status).toBe(401);
  });
});

describe('403', () => {
  it('refuses a viewer a change, naming the permission their role lacks', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const reply = await callProcedure(api, 'apis.createApi', { name: 'nope' }, { session: person.session });
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('api.*.create_api');
  });
});
