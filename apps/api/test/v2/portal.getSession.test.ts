import { describe, expect, it } from 'vitest';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callInternal, callProcedure } from '../internal.ts';

// The portal page's question about its own session (docs/portal.md, The portal page).
const api = useApi();
const setup = useWorkspaceWithApi(api);

async function openSession(fields: { scopes: string[]; returnUrl?: string; externalId?: string }) {
  const { rootKey } = setup.workspace;
  const created = await api.call(
    'portal.createPortal',
    {
      apiId: setup.apiId,
      displayName: 'Acme Cloud',
      logoUrl: 'https://cdn.acme.test/logo.svg',
      primaryColor: '#0B3D91',
      supportUrl: 'https://acme.test/support',
    },
    rootKey,
  );
  if (created.status !== 200) throw new Error(`createPortal failed: ${JSON.stringify(created.body)}`);
  const { portalId } = created.body.data;
  const opened = await api.call(
    'portal.createSession',
    {
      portal: portalId,
      externalId: fields.externalId ?? 'acme-customer-1',
      scopes: fields.scopes as never,
      returnUrl: fields.returnUrl,
    },
    rootKey,
  );
  if (opened.status !== 200) throw new Error(`createSession failed: ${JSON.stringify(opened.body)}`);
  const code = new URL(opened.body.data.url).searchParams.get('code') ?? '';
  const exchanged = await callProcedure(
    api,
    'portal.exchangeCode',
    { code },
    { headers: { 'x-keyplane-portal': '1' } },
  );
  const cookie = exchanged.setCookie.find((value) => value.startsWith('portal_session='))?.split(';')[0] ?? '';
  return { portalId, cookie, accessToken: exchanged.data.accessToken };
}

describe('200', () => {
  it("answers the portal's branding, the customer, the scopes and the way back, to the page's cookie", async () => {
    const { cookie } = await openSession({
      scopes: ['keys:read', 'analytics:read'],
      returnUrl: 'https://acme.test/account',
    });
    const reply = await callProcedure(
      api,
      'portal.getSession',
      {},
      {
        headers: { Cookie: cookie, 'x-keyplane-portal': '1' },
      },
    );
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({
      portal: {
        displayName: 'Acme Cloud',
        logoUrl: 'https://cdn.acme.test/logo.svg',
        primaryColor: '#0b3d91',
        supportUrl: 'https://acme.test/support',
      },
      externalId: 'acme-customer-1',
      scopes: ['keys:read', 'analytics:read'],
      returnUrl: 'https://acme.test/account',
      expiresAt: expect.any(Number),
    });
    expect(reply.data.expiresAt - Date.now()).toBeGreaterThan(23 * 3_600_000);
  });

  it('answers the same at /v2 to the access token as a Bearer token', async () => {
    const { accessToken } = await openSession({ scopes: ['keys:read'], externalId: 'acme-customer-3' });
    const reply = await api.call('portal.getSession', {}, accessToken);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ externalId: 'acme-customer-3', scopes: ['keys:read'], returnUrl: null });
  });
});

describe('401', () => {
  it('refuses a revoked session and no session alike', async () => {
    const { portalId, accessToken } = await openSession({ scopes: ['keys:read'], externalId: 'acme-customer-2' });
    expect((await callProcedure(api, 'portal.getSession', {}, { rootKey: accessToken })).status).toBe(200);
    await api.call(
      'portal.revokeSession',
      { portal: portalId, externalId: 'acme-customer-2' },
      setup.workspace.rootKey,
    );
    const revoked = await callProcedure(api, 'portal.getSession', {}, { rootKey: accessToken });
    expect([revoked.status, revoked.error?.data.code]).toEqual([401, 'UNAUTHORIZED']);
    const none = await callInternal(api, 'portal.getSession', {}, { headers: { 'x-keyplane-portal': '1' } });
    expect(none.status).toBe(401);
  });
});
