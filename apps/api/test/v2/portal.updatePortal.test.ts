import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callAsCustomer, createTestPortal, customerSession, expectPortalNotFound, portalAndKey } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('changes the fields given, leaves the rest, and removes a logo with null', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey, {
      displayName: 'Before',
      logoUrl: 'https://cdn.example.com/a.png',
      supportUrl: 'https://example.com/help',
    });
    const reply = await api.call(
      'portal.updatePortal',
      { portalId, displayName: 'After', logoUrl: null, primaryColor: '#ABCDEF', keyPolicy: { maxKeysPerCustomer: 2 } },
      workspace.rootKey,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({});
    const got = await api.call('portal.getPortal', { portalId }, workspace.rootKey);
    expect(got.body.data).toMatchObject({
      displayName: 'After',
      logoUrl: null,
      primaryColor: '#abcdef',
      supportUrl: 'https://example.com/help',
      keyPolicy: { maxKeysPerCustomer: 2 },
    });
    expect(got.body.data.updatedAt).toEqual(expect.any(Number));
  });

  it('disabling the portal ends its sessions before the call answers', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, 'kim');
    await api.call('portal.updatePortal', { portalId, enabled: false }, workspace.rootKey);
    expect((await callAsCustomer(api, 'portal.listKeys', {}, accessToken)).status).toBe(401);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.updatePortal', () => workspace.rootKey, [
    [{}, 'body.portalId'],
    [{ portalId: 'pc_x', supportUrl: 'ftp://example.com' }, 'body.supportUrl'],
    [{ portalId: 'pc_x', primaryColor: 'rgb(0,0,0)' }, 'body.primaryColor'],
    [{ portalId: 'pc_x', enabled: 'yes' }, 'body.enabled'],
  ]);
});

describe('403', () => {
  it('without update_portal', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, () => ['portal.*.read_portal']);
    expectMissingPermissions(
      await api.post('portal.updatePortal', { portalId, displayName: 'x' }, rootKey),
      `portal.${portalId}.update_portal`,
    );
  });
});

describe('404', () => {
  it('for a portal that does not exist', async () => {
    expectPortalNotFound(
      await api.post('portal.updatePortal', { portalId: 'pc_missing', enabled: false }, workspace.rootKey),
    );
  });
});

describe('409', () => {
  it('for a slug another live portal has', async () => {
    await createTestPortal(api, workspace.rootKey, { slug: 'first' });
    const { portalId } = await createTestPortal(api, workspace.rootKey, { slug: 'second' });
    expectProblem(
      await api.post('portal.updatePortal', { portalId, slug: 'first' }, workspace.rootKey),
      409,
      'service/data/portal_already_exists',
    );
  });
});
