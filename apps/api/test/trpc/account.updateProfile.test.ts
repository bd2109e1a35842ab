import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';

// account.updateProfile: the signed-in person's own name.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('renames the person, trimmed, as every later request sees them', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const reply = await callProcedure(
      api,
      'account.updateProfile',
      { name: '  Vera V.  ' },
      { session: person.session },
    );
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ name: 'Vera V.' });
    expect((await callProcedure(api, 'account.me', undefined, { session: person.session })).data.name).toBe('Vera V.');
  });
});

describe('400', () => {
  it.each([
    ['an empty name', { name: ' ' }],
    ['a name beyond 255 characters', { name: 'n'.repeat(256) }],
    ['no name', {}],
  ])('for %s', async (_case, input) => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const reply = await callInternal(api, 'account.updateProfile', input, { session: person.session });
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toContain('"name"');
  });
});

describe('401', () => {
  it('refuses a root key', async () => {
    const reply = await callProcedure(api, 'account.updateProfile', { name: 'Root' }, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(401);
  });
});

describe('cross-workspace isolation', () => {
  it('changes only the caller', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner', { name: 'Kept' });
    const caller = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    await callProcedure(api, 'account.updateProfile', { name: 'Changed' }, { session: caller.session });
    expect((await callProcedure(api, 'account.me', undefined, { session: person.session })).data.name).toBe('Kept');
  });
});
