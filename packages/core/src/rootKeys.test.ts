import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { hashKey } from './keys.ts';
import {
  issueRootKey,
  type LockedRootKey,
  type NewRootKey,
  type RootKeyChangeStore,
  type RootKeyManager,
  revokeRootKey,
  setRootKeyExpiry,
} from './rootKeys.ts';

function memoryRootKeys(rootKeys: LockedRootKey[] = []) {
  const inserted: NewRootKey[] = [];
  const changes: string[] = [];
  const store: RootKeyChangeStore & { insertRootKey(rootKey: NewRootKey): Promise<void> } = {
    async insertRootKey(rootKey) {
      inserted.push(rootKey);
    },
    async lockRootKey(rootKeyId, workspaceId) {
      return rootKeys.find(
        (key) => key.id === rootKeyId && (workspaceId === undefined || key.workspaceId === workspaceId),
      );
    },
    async revokeRootKey(rootKey) {
      changes.push(`revoke ${rootKey.id}`);
    },
    async setRootKeyExpiry(rootKey, expiresAt) {
      changes.push(`expire ${rootKey.id} at ${expiresAt}`);
    },
  };
  return { store, inserted, changes };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof DomainError ? { status: error.status, detail: error.message } : error),
  );

describe('issueRootKey', () => {
  it('stores a kproot_ key by its hash and start, each permission once, and returns the key once', async () => {
    const { store, inserted } = memoryRootKeys();
    const expiresAt = new Date(Date.UTC(2030, 0, 1));
    const issued = await issueRootKey(store, {
      workspaceId: 'ws_1',
      name: 'ci',
      permissions: ['api.*.create_key', 'api.*.read_api', 'api.*.create_key'],
      expiresAt,
    });
    expect(issued.rootKey).toMatch(/^kproot_[1-9A-HJ-NP-Za-km-z]{30,}$/);
    expect(inserted).toEqual([
      {
        id: issued.rootKeyId,
        workspaceId: 'ws_1',
        name: 'ci',
        hash: hashKey(issued.rootKey),
        start: issued.rootKey.slice(0, 'kproot_'.length + 4),
        permissions: ['api.*.create_key', 'api.*.read_api'],
        expiresAt,
      },
    ]);
    expect(issued.rootKeyId).toMatch(/^rk_/);
  });

  it('stores no name and no expiry when none is given, and a new key every time', async () => {
    const { store, inserted } = memoryRootKeys();
    const first = await issueRootKey(store, { workspaceId: 'ws_1', permissions: [] });
    const second = await issueRootKey(store, { workspaceId: 'ws_1', permissions: [] });
    expect(inserted.map(({ name, expiresAt }) => ({ name, expiresAt }))).toEqual([
      { name: null, expiresAt: null },
      { name: null, expiresAt: null },
    ]);
    expect(first.rootKey).not.toBe(second.rootKey);
    expect(first.rootKeyId).not.toBe(second.rootKeyId);
  });
});

const target: LockedRootKey = {
  id: 'rk_target',
  workspaceId: 'ws_1',
  hash: 'hash',
  permissions: ['api.*.read_api', 'api.api_1.create_key'],
  expiresAt: 2_000,
};
const manager: RootKeyManager = {
  workspaceId: 'ws_1',
  permissions: ['workspace.*.manage_root_keys', 'api.*.read_api', 'api.*.create_key'],
  expiresAt: null,
};

describe('revokeRootKey', () => {
  it('revokes a key of the manager’s workspace whose every permission it holds', async () => {
    const { store, changes } = memoryRootKeys([target]);
    expect(await revokeRootKey(store, { rootKeyId: target.id, manager })).toEqual(target);
    expect(changes).toEqual(['revoke rk_target']);
  });

  it('finds nothing for a missing key or another workspace’s, changing nothing', async () => {
    const { store, changes } = memoryRootKeys([{ ...target, workspaceId: 'ws_2' }]);
    expect(await revokeRootKey(store, { rootKeyId: 'rk_missing', manager })).toBeUndefined();
    expect(await revokeRootKey(store, { rootKeyId: target.id, manager })).toBeUndefined();
    expect(changes).toEqual([]);
  });

  it('answers 403 naming the permissions of the key the manager does not hold', async () => {
    const { store, changes } = memoryRootKeys([target]);
    const weaker = { ...manager, permissions: ['workspace.*.manage_root_keys', 'api.api_1.create_key'] };
    expect(await refusal(revokeRootKey(store, { rootKeyId: target.id, manager: weaker }))).toEqual({
      status: 403,
      detail: "Missing permission: 'api.*.read_api'.",
    });
    expect(changes).toEqual([]);
  });

  it('revokes any workspace’s key without a manager (an operator at the CLI)', async () => {
    const { store, changes } = memoryRootKeys([{ ...target, workspaceId: 'ws_2' }]);
    expect(await revokeRootKey(store, { rootKeyId: target.id })).toMatchObject({ workspaceId: 'ws_2' });
    expect(changes).toEqual(['revoke rk_target']);
  });
});

describe('setRootKeyExpiry', () => {
  it('sets or clears the expiry of a key the manager may change', async () => {
    const { store, changes } = memoryRootKeys([target]);
    expect(await setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: 5_000, manager })).toEqual(target);
    expect(await setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: null, manager })).toEqual(target);
    expect(changes).toEqual(['expire rk_target at 5000', 'expire rk_target at null']);
  });

  it('finds nothing for a missing key or another workspace’s, changing nothing', async () => {
    const { store, changes } = memoryRootKeys([{ ...target, workspaceId: 'ws_2' }]);
    expect(await setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: 5_000, manager })).toBeUndefined();
    expect(changes).toEqual([]);
  });

  it('answers 403 for a key whose permissions the manager does not all hold', async () => {
    const { store, changes } = memoryRootKeys([target]);
    const weaker = { ...manager, permissions: ['api.*.read_api'] };
    expect(await refusal(setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: 5_000, manager: weaker }))).toEqual(
      { status: 403, detail: "Missing permission: 'api.api_1.create_key'." },
    );
    expect(changes).toEqual([]);
  });

  it('answers 403 for making the key outlive its manager, unless the key already does', async () => {
    const { store, changes } = memoryRootKeys([target]);
    const shortLived = { ...manager, expiresAt: 1_000 };
    const outliving = await refusal(
      setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: 3_000, manager: shortLived }),
    );
    expect(outliving).toMatchObject({ status: 403 });
    expect(changes).toEqual([]);
    // The key already expires at 2000, after its manager: keeping it that long-lived is allowed.
    await setRootKeyExpiry(store, { rootKeyId: target.id, expiresAt: 2_000, manager: shortLived });
    expect(changes).toEqual(['expire rk_target at 2000']);
  });
});
