import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  callAsCustomer,
  createTestPortal,
  customerSession,
  expectPortalNotFound,
  openSession,
  portalAndKey,
} from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('ends every live session of the customer, code or token, and no one else’s', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const first = await customerSession(api, workspace.rootKey, portalId, 'olga');
    const pending = await openSession(api, workspace.rootKey, portalId, 'olga');
    const other = await customerSession(api, workspace.rootKey, portalId, 'paul');
    const reply = await api.call('portal.revokeSession', { portal: portalId, externalId: 'olga' }, workspace.rootKey);
    expect(reply.body.data).toEqual({ sessionsRevoked: 2 });
    expect((await callAsCustomer(api, 'portal.listKeys', {}, first.accessToken)).status).toBe(401);
    expect((await api.post('portal.exchangeCode', { code: pending.code })).status).toBe(401);
    expect((await callAsCustomer(api, 'portal.listKeys', {}, other.accessToken)).status).toBe(200);
    const again = await api.call('portal.revokeSession', { portal: portalId, externalId: 'olga' }, workspace.rootKey);
    expect(again.body.data).toEqual({ sessionsRevoked: 0 });
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.revokeSession', () => workspace.rootKey, [
    [{}, 'body.portal'],
    [{ portal: 'pc_x' }, 'body.externalId'],
  ]);
});

describe('403', () => {
  it('without revoke_portal_session', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, () => ['portal.*.read_portal']);
    expectMissingPermissions(
      await api.post('portal.revokeSession', { portal: portalId, externalId: 'x' }, rootKey),
      `portal.${portalId}.revoke_portal_session`,
    );
  });
});

describe('404', () => {
  it('for a portal that does not exist', async () => {
    expectPortalNotFound(
      await api.post('portal.revokeSession', { portal: 'pc_missing', externalId: 'x' }, workspace.rootKey),
    );
  });
});
