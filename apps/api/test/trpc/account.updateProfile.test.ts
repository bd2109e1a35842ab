import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { type Caller, callInternal, callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';
import type { InputOf } from '../procedures.ts';
import { expectInputNaming } from '../trpcAssertions.ts';

// account.updateProfile: the signed-in person's own name.
const { api, workspace } = useApiWithWorkspace();

const updateProfile = (input: InputOf<'account.updateProfile'>, caller: Caller) =>
  callProcedure(api, 'account.updateProfile', input, caller);
/** The person's name as account.me answers it to their session. */
const nameOf = async (session: string) => (await callProcedure(api, 'account.me', undefined, { session })).data.name;

describe('200', () => {
  it('renames the person, trimmed, as every later request sees them', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const reply = await updateProfile({ name: '  Vera V.  ' }, { session: person.session });
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ name: 'Vera V.' });
    expect(await nameOf(person.session)).toBe('Vera V.');
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
    expectInputNaming(reply, 'name');
  });
});

describe('401', () => {
  it('refuses a root key', async () => {
    const reply = await updateProfile({ name: 'Root' }, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(401);
  });
});

describe('cross-workspace isolation', () => {
  it('changes only the caller', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'owner', { name: 'Kept' });
    const caller = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    await updateProfile({ name: 'Changed' }, { session: caller.session });
    expect(await nameOf(person.session)).toBe('Kept');
  });
});
