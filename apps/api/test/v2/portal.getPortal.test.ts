import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPortal, expectPortalNotFound, portalAndKey, unreachablePortalIds } from '../portal.ts';

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
    const { portalId, rootKey } = await portalAndKey(api, workspace, () => ['portal.pc_other.read_portal']);
    expectMissingPermissions(await api.post('portal.getPortal', { portalId }, rootKey), 'portal.*.read_portal');
  });
});

describe('404', () => {
  it('for a portal that does not exist, is deleted, or is another workspace’s', async () => {
    for (const portalId of await unreachablePortalIds(api, workspace.rootKey)) {
      expectPortalNotFound(await api.post('portal.getPortal', { portalId }, workspace.rootKey));
    }
  });
});
