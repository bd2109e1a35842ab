import { hashKey } from '@keyplane/core';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPortal, expectPortalNotFound, portalAndKey, unreachablePortalIds } from '../portal.ts';

const { api, workspace } = useApiWithWorkspace();

const session = (portal: string, extra: Record<string, unknown> = {}) => ({
  portal,
  externalId: 'customer_1',
  scopes: ['keys:read' as const],
  ...extra,
});
/** portal.createSession for `session(portal, extra)`, as the workspace's root key unless given another. */
const createSession = (portal: string, extra: Record<string, unknown> = {}, rootKey = workspace.rootKey) =>
  api.call('portal.createSession', session(portal, extra), rootKey);

describe('200', () => {
  it('answers the session id and the portal URL with a single-use code, storing only its hash', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    const reply = await createSession(portalId, { returnUrl: 'https://app.example.com/keys' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).toMatch(/^ps_/);
    const url = new URL(reply.body.data.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${api.url}/portal/`);
    const code = url.searchParams.get('code') ?? '';
    expect(code).toMatch(/^pst_/);
    const stored = await api
      .em()
      .getConnection()
      .execute<{ code_hash: string }[]>('select code_hash from portal_sessions where id = ?', [reply.body.data.id]);
    expect(stored[0]?.code_hash).toBe(hashKey(code));
  });

  it('takes a root key scoped to this portal and holding exactly what the scopes need on its API', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, ({ portalId, apiId }) => [
      `portal.${portalId}.create_portal_session`,
      `api.${apiId}.read_key`,
      `api.${apiId}.read_api`,
      `api.${apiId}.create_key`,
    ]);
    const reply = await createSession(portalId, { scopes: ['keys:read', 'keys:create', 'keys:reroll'] }, rootKey);
    expect(reply.status).toBe(200);
  });

  it('records the session in the audit log with the root key as actor and the customer in its resources', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { portalId } = await createTestPortal(api, rootKey);
    const { body } = await createSession(portalId, {}, rootKey);
    const rows = await api
      .em()
      .getConnection()
      .execute<{ root_key_id: string; resources: Record<string, string> }[]>(
        `select root_key_id, resources from audit_events where workspace_id = ? and event = 'portal.createSession'`,
        [workspaceId],
      );
    expect(rows).toEqual([
      {
        root_key_id: expect.stringMatching(/^rk_/),
        resources: { portalId, externalId: 'customer_1', sessionId: body.data.id },
      },
    ]);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.createSession', () => workspace.rootKey, [
    [{}, 'body.portal'],
    [{ portal: 'pc_x', externalId: 'a', scopes: [] }, 'body.scopes'],
    [{ portal: 'pc_x', externalId: 'a', scopes: ['keys:everything'] }, 'body.scopes[0]'],
    [{ portal: 'pc_x', externalId: 'a b', scopes: ['keys:read'] }, 'body.externalId'],
    [{ portal: 'pc_x', externalId: 'a', scopes: ['keys:read'], returnUrl: 'http://app.example.com' }, 'body.returnUrl'],
    [{ portal: 'pc_x', externalId: 'a', scopes: ['keys:read'], returnUrl: 'javascript:alert(1)' }, 'body.returnUrl'],
  ]);

  it('refuses keys:reroll, keys:update or keys:delete without keys:read', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    expectProblem(await createSession(portalId, { scopes: ['keys:delete'] }), 400, 'service/application/invalid_input');
  });

  it('takes an http:// returnUrl on a loopback host, for development', async () => {
    const { portalId } = await createTestPortal(api, workspace.rootKey);
    expect((await createSession(portalId, { returnUrl: 'http://localhost:3000/keys' })).status).toBe(200);
  });
});

describe('403', () => {
  it('for the whole request when the root key lacks what one scope needs on the portal’s API (the scope ceiling)', async () => {
    const { portalId, apiId, rootKey } = await portalAndKey(api, workspace, ({ apiId }) => [
      'portal.*.create_portal_session',
      `api.${apiId}.read_key`,
      `api.${apiId}.read_api`,
    ]);
    const reply = await createSession(portalId, { scopes: ['keys:read', 'keys:delete'] }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.delete_key`);
    const sessions = await api.call('portal.listSessions', { portal: portalId }, workspace.rootKey);
    expect(sessions.body.data).toEqual([]);
  });
});

describe('404', () => {
  it('without create_portal_session on the portal, whether it exists or not: no caller learns a portal exists', async () => {
    const { portalId, rootKey } = await portalAndKey(api, workspace, ({ apiId }) => [
      'portal.*.read_portal',
      'portal.pc_other.create_portal_session',
      `api.${apiId}.read_key`,
      `api.${apiId}.read_api`,
    ]);
    const existing = await createSession(portalId, {}, rootKey);
    const missing = await createSession('pc_missing', {}, rootKey);
    expectPortalNotFound(existing);
    expectPortalNotFound(missing);
    expect(existing.body.error.detail.replace(portalId, 'X')).toBe(
      missing.body.error.detail.replace('pc_missing', 'X'),
    );
  });

  it('for a portal that does not exist, is deleted, or is another workspace’s', async () => {
    for (const portal of await unreachablePortalIds(api, workspace.rootKey)) {
      expectPortalNotFound(await createSession(portal));
    }
  });
});
