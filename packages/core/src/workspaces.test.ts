import { describe, expect, it } from 'vitest';
import { hashKey } from './keys.ts';
import { allRootKeyPermissions } from './permissions.ts';
import type { NewRootKey } from './rootKeys.ts';
import { unwrapDataKey, VAULT_KEY_BYTES } from './vault.ts';
import { bootstrapIfEmpty, bootstrapWorkspace, enableVault, type WorkspaceStore } from './workspaces.ts';

const MASTER_KEY = Buffer.alloc(32, 7);

function memoryWorkspaces(existing: string[] = []) {
  const workspaces = existing.map((id) => ({ id, name: 'existing' }));
  const rootKeys: NewRootKey[] = [];
  const dataKeys = new Map<string, string>();
  const store: WorkspaceStore = {
    async insertWorkspace(workspace) {
      workspaces.push(workspace);
    },
    async isEmpty() {
      return workspaces.length === 0;
    },
    async insertRootKey(rootKey) {
      rootKeys.push(rootKey);
    },
    async storeDataKey(workspaceId, wrappedKey) {
      if (dataKeys.has(workspaceId)) return false;
      dataKeys.set(workspaceId, wrappedKey);
      return true;
    },
  };
  return { store, workspaces, rootKeys, dataKeys };
}

describe('bootstrapWorkspace', () => {
  it('creates the workspace and a root key holding every permission, stored by its hash', async () => {
    const { store, workspaces, rootKeys, dataKeys } = memoryWorkspaces();
    const created = await bootstrapWorkspace(store, { name: 'acme' });
    expect(workspaces).toEqual([{ id: created.workspaceId, name: 'acme' }]);
    expect(rootKeys).toEqual([
      expect.objectContaining({
        id: created.rootKeyId,
        workspaceId: created.workspaceId,
        name: 'bootstrap',
        hash: hashKey(created.rootKey),
        permissions: allRootKeyPermissions(),
        expiresAt: null,
      }),
    ]);
    expect(created.rootKey).toMatch(/^kproot_/);
    expect(created.vault).toBe(false);
    expect(dataKeys.size).toBe(0);
  });

  it('with a master key, gives the workspace a data key that only that master key unwraps', async () => {
    const { store, dataKeys } = memoryWorkspaces();
    const created = await bootstrapWorkspace(store, { name: 'acme', masterKey: MASTER_KEY });
    expect(created.vault).toBe(true);
    const wrapped = dataKeys.get(created.workspaceId) ?? '';
    expect(unwrapDataKey(MASTER_KEY, wrapped, created.workspaceId)).toHaveLength(VAULT_KEY_BYTES);
    expect(() => unwrapDataKey(Buffer.alloc(32, 8), wrapped, created.workspaceId)).toThrow();
  });
});

describe('bootstrapIfEmpty', () => {
  it('bootstraps a database with no workspace', async () => {
    const { store, workspaces } = memoryWorkspaces();
    const created = await bootstrapIfEmpty(store, { name: 'default' });
    expect(workspaces.map((workspace) => workspace.id)).toEqual([created?.workspaceId]);
  });

  it('leaves a database that has a workspace alone', async () => {
    const { store, workspaces, rootKeys } = memoryWorkspaces(['ws_existing']);
    expect(await bootstrapIfEmpty(store, { name: 'default', masterKey: MASTER_KEY })).toBeUndefined();
    expect(workspaces).toHaveLength(1);
    expect(rootKeys).toEqual([]);
  });
});

describe('enableVault', () => {
  it('stores a wrapped data key once; enabling again keeps the first', async () => {
    const { store, dataKeys } = memoryWorkspaces(['ws_1']);
    expect(await enableVault(store, { workspaceId: 'ws_1', masterKey: MASTER_KEY })).toBe('created');
    const first = dataKeys.get('ws_1') ?? '';
    expect(unwrapDataKey(MASTER_KEY, first, 'ws_1')).toHaveLength(VAULT_KEY_BYTES);
    expect(await enableVault(store, { workspaceId: 'ws_1', masterKey: MASTER_KEY })).toBe('already_enabled');
    expect(dataKeys.get('ws_1')).toBe(first);
  });

  it('binds the data key to its workspace', async () => {
    const { store, dataKeys } = memoryWorkspaces(['ws_1']);
    await enableVault(store, { workspaceId: 'ws_1', masterKey: MASTER_KEY });
    expect(() => unwrapDataKey(MASTER_KEY, dataKeys.get('ws_1') ?? '', 'ws_2')).toThrow();
  });
});
