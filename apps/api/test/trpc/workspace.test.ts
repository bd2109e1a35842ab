import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';

// workspace.getWorkspace and workspace.deleteWorkspace: the dashboard's settings page.
const { api, workspace } = useApiWithWorkspace();

const getWorkspace = (rootKey: string) => callProcedure(api, 'workspace.getWorkspace', undefined, { rootKey });
const deleteWorkspace = (rootKey: string) => callProcedure(api, 'workspace.deleteWorkspace', {}, { rootKey });

describe('200', () => {
  it("answers the caller's workspace: its id, its name and when it was made, to any of its root keys", async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const reply = await getWorkspace(rootKey);
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({
      workspaceId: workspace.workspaceId,
      name: expect.any(String),
      createdAt: expect.any(Number),
      rootKeySignIn: true,
      rootKeySignInWorkspace: true,
    });
    expect(reply.data.name.length).toBeGreaterThan(0);
  });

  it('deletes the workspace: its root keys and dashboard sessions stop working at once, cached or not', async () => {
    const doomed = await api.workspace();
    const session = await signIn(api, doomed.rootKey);
    const { apiId } = (await api.call('apis.createApi', { name: 'doomed' }, doomed.rootKey)).body.data;
    const { key } = (await api.call('keys.createKey', { apiId }, doomed.rootKey)).body.data;
    // Cached on the way: each must be forgotten, not served from the caches.
    expect((await api.call('keys.verifyKey', { key }, doomed.rootKey)).body.data.valid).toBe(true);

    const reply = await callProcedure(api, 'workspace.deleteWorkspace', {}, { session });
    expect(reply.status).toBe(200);
    expect((await api.post('apis.getApi', { apiId }, doomed.rootKey)).status).toBe(401);
    expect((await callInternal(api, 'dashboard.session', undefined, { session })).status).toBe(401);
    expect((await getWorkspace(doomed.rootKey)).status).toBe(401);
    // Another workspace is untouched.
    expect((await getWorkspace(workspace.rootKey)).status).toBe(200);
  });
});

describe('403', () => {
  it('deleting without workspace.*.manage_root_keys, leaving the workspace as it was', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api', 'api.*.delete_api']);
    const reply = await deleteWorkspace(rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('workspace.*.manage_root_keys');
    expect((await getWorkspace(rootKey)).status).toBe(200);
  });
});
