import { apiNotFound, deleteProtected } from './errors.ts';

/** What deleting an API reads and writes, inside one transaction. */
export interface ApiDeletionStore {
  /**
   * The workspace's live API with this id, locked until the transaction ends, so a concurrent
   * change of its delete protection waits for this deletion; undefined when there is none.
   */
  lockLiveApi(workspaceId: string, apiId: string): Promise<{ deleteProtection: boolean } | undefined>;
  /** Soft-deletes the locked API and has every node forget the workspace's cached keys. */
  markApiDeleted(workspaceId: string, apiId: string): Promise<void>;
}

/**
 * Soft-deletes a live API of the workspace: 404 when there is none (another workspace's included),
 * 412 while it has delete protection. Its keys stay as rows but exist for no procedure.
 */
export async function deleteApiUnlessProtected(
  store: ApiDeletionStore,
  request: { workspaceId: string; apiId: string },
): Promise<void> {
  const api = await store.lockLiveApi(request.workspaceId, request.apiId);
  if (!api) throw apiNotFound(request.apiId);
  if (api.deleteProtection) throw deleteProtected();
  await store.markApiDeleted(request.workspaceId, request.apiId);
}
