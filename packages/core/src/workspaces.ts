import { newId } from './ids.ts';
import { allRootKeyPermissions } from './permissions.ts';
import { issueRootKey, type RootKeyStore } from './rootKeys.ts';
import { createDataKey } from './vault.ts';

export interface VaultKeyStore {
  /** Stores the workspace's wrapped data key, unless it has one already: false then, and the first stays. */
  storeDataKey(workspaceId: string, wrappedKey: string): Promise<boolean>;
}

/** What setting up a workspace reads and writes, inside one transaction. */
export interface WorkspaceStore extends RootKeyStore, VaultKeyStore {
  insertWorkspace(workspace: { id: string; name: string }): Promise<void>;
  /**
   * Whether the database has no workspace at all. Callers asking at the same time get their answers
   * one after the other, each once the transaction of the one before has ended, so of several nodes
   * starting together on a fresh database exactly one finds it empty.
   */
  isEmpty(): Promise<boolean>;
}

export interface WorkspaceSetup {
  name: string;
  /** The server's master key: with one, the workspace gets a vault. */
  masterKey?: Uint8Array;
}

export interface Bootstrapped {
  workspaceId: string;
  rootKeyId: string;
  /** The root key's plaintext, shown once. */
  rootKey: string;
  vault: boolean;
}

/** Gives the workspace a new data key, wrapped by the master key. Enabling twice keeps the first key. */
export async function enableVault(
  store: VaultKeyStore,
  request: { workspaceId: string; masterKey: Uint8Array },
): Promise<'created' | 'already_enabled'> {
  const { wrapped } = createDataKey(request.masterKey, request.workspaceId);
  return (await store.storeDataKey(request.workspaceId, wrapped)) ? 'created' : 'already_enabled';
}

/** A new workspace with a root key that holds every permission (and a vault when a master key is given). */
export async function bootstrapWorkspace(store: WorkspaceStore, setup: WorkspaceSetup): Promise<Bootstrapped> {
  const workspaceId = newId('workspace');
  await store.insertWorkspace({ id: workspaceId, name: setup.name });
  const { rootKeyId, rootKey } = await issueRootKey(store, {
    workspaceId,
    name: 'bootstrap',
    permissions: allRootKeyPermissions(),
  });
  if (setup.masterKey) await enableVault(store, { workspaceId, masterKey: setup.masterKey });
  return { workspaceId, rootKeyId, rootKey, vault: Boolean(setup.masterKey) };
}

/**
 * On a database with no workspace, creates the default one, as a server's first start does; undefined
 * when the database already had one.
 */
export async function bootstrapIfEmpty(
  store: WorkspaceStore,
  setup: WorkspaceSetup,
): Promise<Bootstrapped | undefined> {
  return (await store.isEmpty()) ? bootstrapWorkspace(store, setup) : undefined;
}
