import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callAsCustomer, createTestPortal, customerSession, expectPortalNotFound, portalAndKey } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('deletes the portal and ends its sessions; its customers’ keys stay; its slug is free again', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey, { slug: 'reused' });
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, 'lea');
    const { data } = await callAsCustomer<{ keyId: string }>(api, 'portal.createKey', {}, accessToken);
    const reply = await api.call('portal.deletePortal', { portalId }, workspace.rootKey);
    expect(reply.status).toBe(200);
    expect((await callAsCustomer(api, 'portal.listKeys', {}, accessToken)).status).toBe(401);
    expect((await api.call('keys.getKey', { keyId: data.keyId }, workspace.rootKey)).status).toBe(200);
    await createTestPortal(api, workspace.rootKey, { slug: 'reused' });
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.deletePortal', () => workspace.rootKey, [
    [{}, 'body.portalId'],
    [{ portalId: 'pc_x', extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  it('without delete_portal', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, ({ portalId }) => [
      `portal.${portalId}.read_portal`,
    ]);
    expectMissingPermissions(
      await api.post('portal.deletePortal', { portalId }, rootKey),
      `portal.${portalId}.delete_portal`,
    );
  });
});

describe('404', () => {
  it('for a portal deleted already', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    await api.call('portal.deletePortal', { portalId }, workspace.rootKey);
    expectPortalNotFound(await api.post('portal.deletePortal', { portalId }, workspace.rootKey));
  });
});
