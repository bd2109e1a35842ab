import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPortal } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('lists the live portals in pages, of one API when asked, and only those a scoped key may read', async () => {
    const { rootKey } = await api.workspace();
    const first = await createTestPortal(api, rootKey);
    const second = await createTestPortal(api, rootKey);
    const deleted = await createTestPortal(api, rootKey);
    await api.call('portal.deletePortal', { portalId: deleted.portalId }, rootKey);
    const page = await api.call('portal.listPortals', { limit: 1 }, rootKey);
    expect(page.body.data.map((portal) => portal.portalId)).toEqual([first.portalId]);
    expect(page.body.pagination.hasMore).toBe(true);
    const rest = await api.call('portal.listPortals', { cursor: page.body.pagination.cursor }, rootKey);
    expect(rest.body.data.map((portal) => portal.portalId)).toEqual([second.portalId]);
    const ofApi = await api.call('portal.listPortals', { apiId: second.apiId }, rootKey);
    expect(ofApi.body.data.map((portal) => portal.portalId)).toEqual([second.portalId]);
  });

  it('answers a root key scoped to one portal only that one', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    await createTestPortal(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith([`portal.${portalId}.read_portal`]);
    const reply = await api.call('portal.listPortals', {}, rootKey);
    expect(reply.body.data.map((portal) => portal.portalId)).toEqual([portalId]);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.listPortals', () => workspace.rootKey, [
    [{ limit: 0 }, 'body.limit'],
    [{ apiId: '' }, 'body.apiId'],
  ]);
});

describe('403', () => {
  it('without any read_portal', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectMissingPermissions(await api.post('portal.listPortals', {}, rootKey), 'portal.*.read_portal');
  });
});
