import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPortal, customerSession, expectPortalNotFound, openSession, portalAndKey } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('lists the portal’s sessions without codes or tokens, of one customer when asked', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const pending = await openSession(api, workspace.rootKey, portalId, 'mia', ['keys:read']);
    const used = await customerSession(api, workspace.rootKey, portalId, 'noa');
    const reply = await api.call('portal.listSessions', { portal: portalId }, workspace.rootKey);
    expect(reply.body.data).toEqual([
      expect.objectContaining({ id: pending.sessionId, externalId: 'mia', scopes: ['keys:read'], exchangedAt: null }),
      expect.objectContaining({
        id: used.sessionId,
        externalId: 'noa',
        exchangedAt: expect.any(Number),
        revokedAt: null,
      }),
    ]);
    expect(JSON.stringify(reply.body)).not.toMatch(/pst_|pat_/);
    const ofOne = await api.call('portal.listSessions', { portal: portalId, externalId: 'noa' }, workspace.rootKey);
    expect(ofOne.body.data.map((session) => session.id)).toEqual([used.sessionId]);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.listSessions', () => workspace.rootKey, [
    [{}, 'body.portal'],
    [{ portal: 'pc_x', limit: 101 }, 'body.limit'],
  ]);
});

describe('403', () => {
  it('without read_portal', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, () => ['portal.*.create_portal_session']);
    expectMissingPermissions(
      await api.post('portal.listSessions', { portal: portalId }, rootKey),
      'portal.*.read_portal',
    );
  });
});

describe('404', () => {
  it('for a portal that does not exist', async () => {
    expectPortalNotFound(await api.post('portal.listSessions', { portal: 'pc_missing' }, workspace.rootKey));
  });
});
