import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPortal } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('answers the portal to a root key that may read it, and to one scoped to it', async () => {
    const { portalId, apiId } = await createTestPortal(api, workspace.rootKey, { displayName: 'Shown' });
    const { rootKey } = await workspace.rootKeyWith([`portal.${portalId}.read_portal`]);
    const reply = await api.call('portal.getPortal', { portalId }, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ portalId, apiId, displayName: 'Shown', enabled: true, keyPolicy: {} });
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.getPortal', () => workspace.rootKey, [
    [{}, 'body.portalId'],
    [{ portalId: 'pc x' }, 'body.portalId'],
  ]);
});

describe('403', () => {
  it('without read_portal, naming the wildcard for a portal it may not read', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['portal.pc_other.read_portal']);
    expectMissingPermissions(await api.post('portal.getPortal', { portalId }, rootKey), 'portal.*.read_portal');
  });
});

describe('404', () => {
  it('for a portal that does not exist, is deleted, or is another workspace’s', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    await api.call('portal.deletePortal', { portalId }, workspace.rootKey);
    const other = await api.workspace();
    const { portalId: othersPortal } = await createTestPortal(api, other.rootKey);
    for (const id of ['pc_missing', portalId, othersPortal]) {
      expectProblem(
        await api.post('portal.getPortal', { portalId: id }, workspace.rootKey),
        404,
        'service/data/portal_not_found',
      );
    }
  });
});
