import { describe, expect, it } from 'vitest';
import { type ApiDeletionStore, deleteApiUnlessProtected } from './apiDeletion.ts';
import { DomainError } from './errors.ts';

interface StoredApi {
  workspaceId: string;
  deleteProtection: boolean;
  deleted: boolean;
}

function memoryStore(apis: Record<string, StoredApi>): ApiDeletionStore & { announced: string[] } {
  const announced: string[] = [];
  return {
    announced,
    async lockLiveApi(workspaceId, apiId) {
      const api = apis[apiId];
      return api && api.workspaceId === workspaceId && !api.deleted
        ? { deleteProtection: api.deleteProtection }
        : undefined;
    },
    async markApiDeleted(workspaceId, apiId) {
      const api = apis[apiId];
      if (api) api.deleted = true;
      announced.push(workspaceId);
    },
  };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof DomainError ? { status: error.status, type: error.type } : error),
  );

describe('deleteApiUnlessProtected', () => {
  it('deletes a live API of the workspace and announces the change', async () => {
    const apis = { api_1: { workspaceId: 'ws_1', deleteProtection: false, deleted: false } };
    const store = memoryStore(apis);
    await deleteApiUnlessProtected(store, { workspaceId: 'ws_1', apiId: 'api_1' });
    expect(apis.api_1.deleted).toBe(true);
    expect(store.announced).toEqual(['ws_1']);
  });

  it('answers 404 for a missing, deleted or other workspace’s API, changing nothing', async () => {
    const apis = {
      api_gone: { workspaceId: 'ws_1', deleteProtection: false, deleted: true },
      api_other: { workspaceId: 'ws_2', deleteProtection: false, deleted: false },
    };
    const store = memoryStore(apis);
    for (const apiId of ['api_missing', 'api_gone', 'api_other']) {
      expect(await refusal(deleteApiUnlessProtected(store, { workspaceId: 'ws_1', apiId }))).toEqual({
        status: 404,
        type: 'service/data/api_not_found',
      });
    }
    expect(apis.api_other.deleted).toBe(false);
    expect(store.announced).toEqual([]);
  });

  it('answers 412 while the API has delete protection, changing nothing', async () => {
    const apis = { api_1: { workspaceId: 'ws_1', deleteProtection: true, deleted: false } };
    const store = memoryStore(apis);
    expect(await refusal(deleteApiUnlessProtected(store, { workspaceId: 'ws_1', apiId: 'api_1' }))).toEqual({
      status: 412,
      type: 'service/application/protected_resource',
    });
    expect(apis.api_1.deleted).toBe(false);
    expect(store.announced).toEqual([]);
  });
});
