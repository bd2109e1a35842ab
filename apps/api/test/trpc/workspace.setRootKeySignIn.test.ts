import { rolePermissions } from '@keyplane/core';
import { describe, expect, it } from 'vitest';
import { asBrowser } from '../accounts.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { type Caller, callInternal, callProcedure, signIn } from '../internal.ts';
import { signedInPerson } from '../people.ts';
import { expectInputNaming } from '../trpcAssertions.ts';

// workspace.setRootKeySignIn: an owner turns root keys off as a way into the workspace's dashboard.
const { api, workspace } = useApiWithWorkspace();

const rootKeySignIn = (rootKey: string) => callInternal(api, 'dashboard.signIn', { rootKey }, asBrowser);
const setRootKeySignIn = (enabled: boolean, caller: Caller) =>
  callProcedure(api, 'workspace.setRootKeySignIn', { enabled }, caller);

describe('200', () => {
  it('an owner turns root-key sign-in off: dashboard.signIn refuses with 403 saying how to get in, /v2 keeps working', async () => {
    const target = await api.workspace();
    const owner = await signedInPerson(api, target.workspaceId, 'owner');
    const off = await setRootKeySignIn(false, { session: owner.session });
    expect(off.status).toBe(200);
    expect(off.data).toEqual({ rootKeySignIn: false });
    const refused = await rootKeySignIn(target.rootKey);
    expect(refused.status).toBe(403);
    expect(refused.error?.message).toMatch(/turned off .* sign in with your email and password/);
    expect(refused.setCookie).toEqual([]);
    expect((await api.call('apis.createApi', { name: 'still-served' }, target.rootKey)).status).toBe(200);
    const shown = await callProcedure(api, 'workspace.getWorkspace', undefined, { session: owner.session });
    expect(shown.data).toMatchObject({ rootKeySignIn: false, rootKeySignInWorkspace: false });
    // Another workspace is untouched.
    expect((await rootKeySignIn(workspace.rootKey)).status).toBe(200);

    const on = await setRootKeySignIn(true, { session: owner.session });
    expect(on.data).toEqual({ rootKeySignIn: true });
    expect((await rootKeySignIn(target.rootKey)).status).toBe(200);
  });

  it('a root key with every permission stands as owner (the break-glass path)', async () => {
    const target = await api.workspace();
    const reply = await setRootKeySignIn(false, { rootKey: target.rootKey });
    expect(reply.status).toBe(200);
    expect((await rootKeySignIn(target.rootKey)).status).toBe(403);
  });
});

describe('400', () => {
  it('without enabled', async () => {
    const reply = await callInternal(api, 'workspace.setRootKeySignIn', {}, { rootKey: workspace.rootKey });
    expectInputNaming(reply, 'enabled');
  });
});

describe('403', () => {
  it('refuses an admin and a root key that does not hold every permission', async () => {
    const admin = await signedInPerson(api, workspace.workspaceId, 'admin');
    const { rootKey } = await workspace.rootKeyWith(rolePermissions('member'));
    for (const caller of [{ session: admin.session }, { rootKey }]) {
      const reply = await setRootKeySignIn(false, caller);
      expect(reply.status).toBe(403);
      expect(reply.error?.message).toMatch(/^Only an owner of the workspace may/);
    }
    expect((await rootKeySignIn(workspace.rootKey)).status).toBe(200);
  });

  it('dashboard.signIn refuses every root key when the server turns it off (DASHBOARD_ROOT_KEY_SIGNIN=false), before looking at the key', async () => {
    const { team } = api.services;
    team.rootKeySignIn = false;
    try {
      for (const rootKey of [workspace.rootKey, 'kproot_unknown']) {
        const reply = await rootKeySignIn(rootKey);
        expect(reply.status).toBe(403);
        expect(reply.error?.message).toMatch(/DASHBOARD_ROOT_KEY_SIGNIN=false/);
      }
      const shown = await callProcedure(api, 'workspace.getWorkspace', undefined, { rootKey: workspace.rootKey });
      expect(shown.data).toMatchObject({ rootKeySignIn: false, rootKeySignInWorkspace: true });
    } finally {
      team.rootKeySignIn = true;
    }
    // Sessions opened before stay until they end.
    expect(await signIn(api, workspace.rootKey)).toBeTruthy();
  });
});

describe('cross-workspace isolation', () => {
  it("an owner of one workspace changes only their own workspace's setting", async () => {
    const owner = await signedInPerson(api, (await api.workspace()).workspaceId, 'owner');
    await setRootKeySignIn(false, { session: owner.session });
    expect((await rootKeySignIn(workspace.rootKey)).status).toBe(200);
  });
});
