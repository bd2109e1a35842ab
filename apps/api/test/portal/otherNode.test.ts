import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callAsCustomer, createTestPortal, customerSession } from '../portal.ts';
import { useOtherServerProcess } from '../secondNode.ts';

// Ending a customer's portal session holds on every node from the moment it commits: a session is
// read from the database on every request (packages/procedures/src/middleware/portalSession.ts).
// Here the provider ends it on this file's server; the customer's next request goes to a second
// server process on the same database.

const { api, workspace } = useApiWithWorkspace();
const onOtherNode = useOtherServerProcess(api);

describe('401 on the other server process, at once', () => {
  it.each([
    [
      'revoked',
      (portalId: string) =>
        api.call('portal.revokeSession', { portal: portalId, externalId: 'ivy' }, workspace.rootKey),
    ],
    [
      'the portal disabled',
      (portalId: string) => api.call('portal.updatePortal', { portalId, enabled: false }, workspace.rootKey),
    ],
    ['the portal deleted', (portalId: string) => api.call('portal.deletePortal', { portalId }, workspace.rootKey)],
  ])('a session %s on this node', async (_, end) => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, 'ivy');
    expect((await callAsCustomer(onOtherNode, 'portal.createKey', {}, accessToken)).status).toBe(200);
    const ended = await end(portalId);
    expect(ended.status).toBe(200);
    const listed = await callAsCustomer(onOtherNode, 'portal.listKeys', {}, accessToken);
    expect(listed.status).toBe(401);
    expect(listed.error?.message).toMatch(/portal session has ended/);
    expect((await callAsCustomer(onOtherNode, 'portal.createKey', {}, accessToken)).status).toBe(401);
  });
});
