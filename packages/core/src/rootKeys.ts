import { forbidden } from './errors.ts';
import { newId } from './ids.ts';
import { generateKey } from './keys.ts';
import { permissionsNotHeld } from './permissions.ts';
import { requireRootKeyExpiryAllowed } from './rootKeyExpiry.ts';

const ROOT_KEY_PREFIX = 'kproot';
const ROOT_KEY_BYTES = 24;

/** A root key as it is stored: its hash and the start listings show, never the key itself. */
export interface NewRootKey {
  id: string;
  workspaceId: string;
  name: string | null;
  hash: string;
  start: string;
  permissions: string[];
  expiresAt: Date | null;
}

export interface RootKeyStore {
  insertRootKey(rootKey: NewRootKey): Promise<void>;
}

export interface RootKeyRequest {
  workspaceId: string;
  name?: string;
  permissions: readonly string[];
  expiresAt?: Date;
}

export interface IssuedRootKey {
  rootKeyId: string;
  /** The plaintext, shown to the caller once: only its hash is stored. */
  rootKey: string;
}

/** A new root key with these permissions (each once) for the workspace. */
export async function issueRootKey(store: RootKeyStore, request: RootKeyRequest): Promise<IssuedRootKey> {
  const material = generateKey({ prefix: ROOT_KEY_PREFIX, byteLength: ROOT_KEY_BYTES });
  const rootKeyId = newId('rootKey');
  await store.insertRootKey({
    id: rootKeyId,
    workspaceId: request.workspaceId,
    name: request.name ?? null,
    hash: material.hash,
    start: material.start,
    permissions: [...new Set(request.permissions)],
    expiresAt: request.expiresAt ?? null,
  });
  return { rootKeyId, rootKey: material.key };
}

/** A root key as it is just before a change to it, under its row lock. */
export interface LockedRootKey {
  id: string;
  workspaceId: string;
  hash: string;
  permissions: string[];
  /** Unix ms; null: never. */
  expiresAt: number | null;
}

/** What changing a root key reads and writes, inside one transaction. */
export interface RootKeyChangeStore {
  /**
   * The root key, locked until the transaction ends so that what is judged is what changes;
   * undefined when there is none (in `workspaceId`, when one is given).
   */
  lockRootKey(rootKeyId: string, workspaceId: string | undefined): Promise<LockedRootKey | undefined>;
  /** Revokes it (a revoked key keeps its first revocation time) and has every node forget it. */
  revokeRootKey(rootKey: LockedRootKey): Promise<void>;
  /** Sets (null: clears) when it expires, and has every node forget it. */
  setRootKeyExpiry(rootKey: LockedRootKey, expiresAt: number | null): Promise<void>;
}

/** The root key managing another one: it reaches keys of its own workspace only. */
export interface RootKeyManager {
  workspaceId: string;
  permissions: readonly string[];
  /** Unix ms; null: never. */
  expiresAt: number | null;
}

/**
 * A root key may grant, change or revoke only root keys whose every permission it holds itself (its
 * `grants`), so `workspace.*.manage_root_keys` never reaches beyond the caller's own permissions
 * (403 naming the rest).
 */
export function requireHeldPermissions(grants: readonly string[], permissions: readonly string[]): void {
  const missing = permissionsNotHeld(grants, permissions);
  if (missing.length > 0) throw forbidden(missing);
}

/**
 * Revokes a root key; undefined when there is no such key. Revoking twice keeps the first time.
 * Without a manager (the CLI, an operator) any workspace's key is revoked.
 */
export async function revokeRootKey(
  store: RootKeyChangeStore,
  request: { rootKeyId: string; manager?: RootKeyManager },
): Promise<LockedRootKey | undefined> {
  const { manager } = request;
  const target = await store.lockRootKey(request.rootKeyId, manager?.workspaceId);
  if (!target) return undefined;
  if (manager) requireHeldPermissions(manager.permissions, target.permissions);
  await store.revokeRootKey(target);
  return target;
}

/**
 * Sets (null: clears) when a root key of the manager's workspace expires; undefined when there is no
 * such key. Besides holding the key's permissions, the manager may not make it live longer than it
 * will itself, unless the key already does (403).
 */
export async function setRootKeyExpiry(
  store: RootKeyChangeStore,
  request: { rootKeyId: string; expiresAt: number | null; manager: RootKeyManager },
): Promise<LockedRootKey | undefined> {
  const { manager } = request;
  const target = await store.lockRootKey(request.rootKeyId, manager.workspaceId);
  if (!target) return undefined;
  requireHeldPermissions(manager.permissions, target.permissions);
  requireRootKeyExpiryAllowed({ caller: manager.expiresAt, current: target.expiresAt, requested: request.expiresAt });
  await store.setRootKeyExpiry(target, request.expiresAt);
  return target;
}
