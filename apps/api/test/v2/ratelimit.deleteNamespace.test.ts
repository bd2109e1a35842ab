import { describe, expect, it } from 'vitest';
import { storedNamespaces } from '../dbInspect.ts';
import { createNamespace, useApiWithWorkspace } from '../fixtures.ts';
import { deleteNamespace } from '../ratelimit.ts';

// Internal: served at /trpc for the dashboard, not at /v2 (the reference has no such procedure).
const { api, workspace } = useApiWithWorkspace();

const stateOf = async (workspaceId: string, name: string) =>
  (await storedNamespaces(api.em(), workspaceId)).filter((namespace) => namespace.name === name);

describe('200', () => {
  it('soft-deletes the namespace by name or id', async () => {
    const byName = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'delete_by_name');
    const byId = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'delete_by_id');
    expect((await deleteNamespace(api, workspace.rootKey, 'delete_by_name')).status).toBe(200);
    expect((await deleteNamespace(api, workspace.rootKey, byId)).status).toBe(200);
    expect(await stateOf(workspace.workspaceId, 'delete_by_name')).toEqual([
      { id: byName, name: 'delete_by_name', deleted: true },
    ]);
    expect(await stateOf(workspace.workspaceId, 'delete_by_id')).toEqual([
      { id: byId, name: 'delete_by_id', deleted: true },
    ]);
  });
});

describe('/v2', () => {
  it('does not serve it', async () => {
    const reply = await api.post('ratelimit.deleteNamespace', { namespace: 'anything' }, workspace.rootKey);
    expect(reply.status).toBe(404);
  });
});

describe('400', () => {
  it('without a namespace', async () => {
    const response = await api.fetch('/trpc/ratelimit.deleteNamespace', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}` },
      body: JSON.stringify({}),
    });
    expect(response.status).toBe(400);
  });
});

describe('403', () => {
  it('without ratelimit.<namespaceId>.delete_namespace or the wildcard, deleting nothing', async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'kept');
    for (const grants of [
      [],
      ['ratelimit.*.limit'],
      ['ratelimit.rlns_x.delete_namespace'],
      [`ratelimit.${id}.read_namespace`],
    ]) {
      const { rootKey } = await workspace.rootKeyWith(grants);
      const reply = await deleteNamespace(api, rootKey, 'kept');
      expect(reply.status).toBe(403);
      // Its id only to a root key that may read it: to others, the answer for a namespace that never was.
      const named = grants.some((grant) => grant.endsWith('.read_namespace')) ? id : '*';
      expect(reply.error?.message).toBe(`Missing permission: 'ratelimit.${named}.delete_namespace'.`);
      expect((await deleteNamespace(api, rootKey, named === '*' ? 'never_was' : 'kept')).error?.message).toBe(
        reply.error?.message,
      );
    }
    expect(await stateOf(workspace.workspaceId, 'kept')).toEqual([{ id, name: 'kept', deleted: false }]);
    const { rootKey } = await workspace.rootKeyWith([`ratelimit.${id}.delete_namespace`]);
    expect((await deleteNamespace(api, rootKey, 'kept')).status).toBe(200);
  });
});

describe('404', () => {
  it('for a missing or already deleted namespace', async () => {
    expect((await deleteNamespace(api, workspace.rootKey, 'never_existed')).status).toBe(404);
    await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'deleted_twice');
    expect((await deleteNamespace(api, workspace.rootKey, 'deleted_twice')).status).toBe(200);
    const again = await deleteNamespace(api, workspace.rootKey, 'deleted_twice');
    expect(again.status).toBe(404);
    expect(again.error?.data.type).toBe('service/data/ratelimit_namespace_not_found');
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace cannot delete this workspace's namespace", async () => {
    const id = await createNamespace(api, workspace.workspaceId, workspace.rootKey, 'not_yours');
    const other = await api.workspace();
    for (const namespace of [id, 'not_yours']) {
      expect((await deleteNamespace(api, other.rootKey, namespace)).status).toBe(404);
    }
    expect(await stateOf(workspace.workspaceId, 'not_yours')).toEqual([{ id, name: 'not_yours', deleted: false }]);
  });
});
