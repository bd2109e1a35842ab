import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callProcedure } from '../internal.ts';
import { anotherWorkspaceOf, signedInPerson } from '../people.ts';
import { expectNoAccount } from '../trpcAssertions.ts';

// account.me: the signed-in person, their role here and every workspace they belong to.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('answers the person, their role, their workspaces and whether they have a password', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'admin', { name: 'Ada Admin' });
    const other = await anotherWorkspaceOf(api, person.userId, 'viewer');
    const reply = await callProcedure(api, 'account.me', undefined, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data).toMatchObject({
      userId: person.userId,
      email: person.email,
      name: 'Ada Admin',
      role: 'admin',
      workspaceId: workspace.workspaceId,
      hasPassword: true,
    });
    expect(reply.data.workspaces).toEqual(
      expect.arrayContaining([
        { workspaceId: workspace.workspaceId, name: expect.any(String), role: 'admin' },
        { workspaceId: other.workspaceId, name: expect.any(String), role: 'viewer' },
      ]),
    );
    expect(reply.data.workspaces).toHaveLength(2);
    await rows(api.em(), sql`update users set password_hash = null where id = ${person.userId}`);
    expect((await callProcedure(api, 'account.me', undefined, { session: person.session })).data.hasPassword).toBe(
      false,
    );
  });
});

describe('401', () => {
  it('refuses a root key, which has no account', async () => {
    expectNoAccount(await callProcedure(api, 'account.me', undefined, { rootKey: workspace.rootKey }));
  });
});

describe('cross-workspace isolation', () => {
  it('lists no workspace the person is not a member of', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    await api.workspace();
    const reply = await callProcedure(api, 'account.me', undefined, { session: person.session });
    expect(reply.data.workspaces.map((listed) => listed.workspaceId)).toEqual([workspace.workspaceId]);
  });
});
