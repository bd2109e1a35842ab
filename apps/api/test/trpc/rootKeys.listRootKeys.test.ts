import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';

const { api, workspace } = useApiWithWorkspace();

const list = (rootKey = workspace.rootKey) => callProcedure(api, 'rootKeys.listRootKeys', undefined, { rootKey });

describe('200', () => {
  it('lists the workspace root keys without their secrets, with when each was last used', async () => {
    const used = await workspace.rootKeyWith(['api.*.create_api']);
    const unused = await workspace.rootKeyWith(['api.*.read_api']);
    const before = Date.now();
    expect((await api.post('apis.createApi', { name: 'use' }, used.rootKey)).status).toBe(200);
    await api.services.rootKeyUsage.flush();
    const { data: rootKeys } = (await list()).data;
    expect(JSON.stringify(rootKeys)).not.toContain(used.rootKey);
    const find = (id: string) => rootKeys.find((rootKey) => rootKey.rootKeyId === id);
    expect(find(used.rootKeyId)?.lastUsedAt).toBeGreaterThanOrEqual(before - 5);
    expect(find(unused.rootKeyId)?.lastUsedAt).toBeNull();
    expect(used.rootKey.startsWith(find(used.rootKeyId)?.start ?? '-')).toBe(true);
  });

  it('to a root key that may only read root keys, and to a viewer', async () => {
    const reader = await workspace.rootKeyWith(['workspace.*.read_root_keys']);
    expect((await list(reader.rootKey)).data.data.map((rootKey) => rootKey.rootKeyId)).toContain(reader.rootKeyId);
    const viewer = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const asViewer = await callProcedure(api, 'rootKeys.listRootKeys', undefined, { session: viewer.session });
    expect(asViewer.status).toBe(200);
    expect(asViewer.data.data.map((rootKey) => rootKey.rootKeyId)).toContain(reader.rootKeyId);
  });
});

describe('pages', () => {
  it('walks the root keys in creation order, a page at a time', async () => {
    const fresh = await api.workspace();
    const created = [];
    for (let index = 0; index < 3; index++)
      created.push((await fresh.rootKeyWith([`api.api_${index}.read_api`])).rootKeyId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await callProcedure(api, 'rootKeys.listRootKeys', { limit: 2, cursor }, { rootKey: fresh.rootKey }))
        .data;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((rootKey) => rootKey.rootKeyId));
      cursor = page.pagination.cursor;
    } while (cursor !== undefined);
    expect(seen.slice(1)).toEqual(created);
  });

  it('ends a page early once its keys would carry more than 1000 permissions', async () => {
    const fresh = await api.workspace();
    const grants = (key: number) => Array.from({ length: 600 }, (_, index) => `api.api_${key}_${index}.read_api`);
    const heavy = [(await fresh.rootKeyWith(grants(0))).rootKeyId, (await fresh.rootKeyWith(grants(1))).rootKeyId];
    const first = (await callProcedure(api, 'rootKeys.listRootKeys', {}, { rootKey: fresh.rootKey })).data;
    // The bootstrap key (a few permissions) and the first heavy one; the second would pass 1000.
    expect(first.data.map((rootKey) => rootKey.rootKeyId).slice(1)).toEqual([heavy[0]]);
    expect(first.pagination.hasMore).toBe(true);
    const second = (
      await callProcedure(api, 'rootKeys.listRootKeys', { cursor: first.pagination.cursor }, { rootKey: fresh.rootKey })
    ).data;
    expect(second.data.map((rootKey) => rootKey.rootKeyId)).toEqual([heavy[1]]);
    expect(second.pagination).toEqual({ hasMore: false });
  });
});

describe('403', () => {
  it('without workspace.*.read_root_keys, naming it', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const reply = await list(rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('workspace.*.read_root_keys');
  });

  it('to a member, whose role reads no root keys', async () => {
    const member = await signedInPerson(api, workspace.workspaceId, 'member');
    const reply = await callProcedure(api, 'rootKeys.listRootKeys', undefined, { session: member.session });
    expect(reply.status).toBe(403);
  });
});

describe('cross-workspace isolation', () => {
  it('lists only the caller workspace keys', async () => {
    const other = await api.workspace();
    const theirs = await other.rootKeyWith(['api.*.read_api']);
    const ids = (await list()).data.data.map((rootKey) => rootKey.rootKeyId);
    expect(ids).not.toContain(theirs.rootKeyId);
  });
});

describe('rootKeys.permissionCatalog', () => {
  it('200: every grantable action by resource type', async () => {
    const reply = await callProcedure(api, 'rootKeys.permissionCatalog', undefined, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(200);
    const byType = Object.fromEntries(reply.data.resourceTypes.map((entry) => [entry.resourceType, entry.actions]));
    expect(Object.keys(byType).sort()).toEqual([
      'api',
      'identity',
      'portal',
      'ratelimit',
      'rbac',
      'webhook',
      'workspace',
    ]);
    expect(byType.api).toContain('verify_key');
    expect(byType.workspace).toEqual([
      'read_root_keys',
      'manage_root_keys',
      'read_audit_log',
      'read_members',
      'manage_members',
    ]);
    expect(byType.webhook).toEqual(['create_endpoint', 'read_endpoint', 'update_endpoint', 'delete_endpoint']);
  });

  it('200: to a root key that may only read root keys', async () => {
    const { rootKey } = await workspace.rootKeyWith(['workspace.*.read_root_keys']);
    expect((await callInternal(api, 'rootKeys.permissionCatalog', undefined, { rootKey })).status).toBe(200);
  });

  it('403: without workspace.*.read_root_keys', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expect((await callInternal(api, 'rootKeys.permissionCatalog', undefined, { rootKey })).status).toBe(403);
  });
});
