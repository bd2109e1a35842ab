import { describe, expect, it } from 'vitest';
import { expectInvalidInput } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal } from '../internal.ts';
import * as portal from '../portal.ts';

// The portal page's way in (docs/portal.md, Sessions): a single-use code for the session's access token.
const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('sets the portal_session cookie (HttpOnly, SameSite=Strict) holding the access token', async () => {
    const { portalId } = await portal.createTestPortal(api, workspace.rootKey);
    const { code } = await portal.openSession(api, workspace.rootKey, portalId, portal.newCustomerId('once'));
    const { reply, cookie } = await portal.exchangeAtTrpc(api, code);
    expect(reply.status).toBe(200);
    expect(reply.data.accessToken).toMatch(/^pat_/);
    expect(reply.data.expiresAt - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(cookie).toMatch(/^portal_session=pat_[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).toBe(`portal_session=${reply.data.accessToken}; Max-Age=86400; Path=/; HttpOnly; SameSite=Strict`);
  });

  it('answers the access token at /v2, which has no cookies, and records the exchange with the customer as actor', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { portalId } = await portal.createTestPortal(api, rootKey);
    const { code, sessionId } = await portal.openSession(api, rootKey, portalId, 'hana');
    const reply = await api.call('portal.exchangeCode', { code });
    expect(reply.status).toBe(200);
    expect(reply.body.data.accessToken).toMatch(/^pat_/);
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect((await portal.callAsCustomer(api, 'portal.listKeys', {}, reply.body.data.accessToken)).status).toBe(200);
    const events = await portal.sessionAuditEvents(api, workspaceId, sessionId);
    expect(events.map(({ event }) => event)).toEqual([
      ['portal.createSession', false, null],
      ['portal.exchangeCode', true, 'hana'],
    ]);
    expect(events[1]?.resources).toMatchObject({ portalId, sessionId });
  });
});

describe('400', () => {
  it.each([
    [{}, 'body.code'],
    [{ code: '' }, 'body.code'],
    [{ code: `pst_${'x'.repeat(253)}` }, 'body.code'],
    [{ code: 7 }, 'body.code'],
    [{ code: 'pst_x', externalId: 'someone' }, 'body.externalId'],
  ])('rejects %j', async (body, location) => {
    expectInvalidInput(await api.post('portal.exchangeCode', body), location);
  });
});

describe('401', () => {
  it('for a code already exchanged: a code works once, and the refusal sets no cookie', async () => {
    const { portalId } = await portal.createTestPortal(api, workspace.rootKey);
    const { code } = await portal.openSession(api, workspace.rootKey, portalId, portal.newCustomerId('once'));
    expect((await portal.exchangeAtTrpc(api, code)).reply.status).toBe(200);
    const again = await portal.exchangeAtTrpc(api, code);
    portal.expectTrpcProblem(again.reply, 401, 'service/authentication/unauthorized');
    expect(again.cookie).toBeUndefined();
  });

  it('answers unknown, used and expired codes with the same 401', async () => {
    const { portalId } = await portal.createTestPortal(api, workspace.rootKey);
    const { code: used } = await portal.openSession(api, workspace.rootKey, portalId, portal.newCustomerId('used'));
    await api.call('portal.exchangeCode', { code: used });
    const { code: expired, sessionId } = await portal.openSession(
      api,
      workspace.rootKey,
      portalId,
      portal.newCustomerId('expired'),
    );
    await api
      .em()
      .getConnection()
      .execute(`update portal_sessions set code_expires_at = now() - interval '1 second' where id = ?`, [sessionId]);
    const details = new Set<string>();
    for (const code of ['pst_unknown', used, expired]) {
      const reply = await api.post('portal.exchangeCode', { code });
      expect(reply.status).toBe(401);
      details.add(JSON.stringify(reply.body.error));
    }
    expect(details.size).toBe(1);
  });
});

describe('403', () => {
  it('at /trpc without the portal or dashboard header (a cross-site page cannot call it), spending no code', async () => {
    const { portalId } = await portal.createTestPortal(api, workspace.rootKey);
    const { code } = await portal.openSession(api, workspace.rootKey, portalId, portal.newCustomerId('kept'));
    const reply = await callInternal(api, 'portal.exchangeCode', { code }, { headers: {} });
    expect(reply.status).toBe(403);
    expect((await portal.exchangeAtTrpc(api, code)).reply.status).toBe(200);
  });
});

describe('cross-customer isolation', () => {
  it('a code opens its own customer’s session on its own portal, and no one else’s', async () => {
    const bob = await portal.newCustomer(api, workspace.rootKey, 'bob');
    await bob.createKey();
    const alice = portal.newCustomerId('alice');
    const other = await api.workspace();
    const { portalId: othersPortal } = await portal.createTestPortal(api, other.rootKey);
    await (await portal.signInCustomer(api, other.rootKey, othersPortal, alice)).createKey();
    const { code } = await portal.openSession(api, workspace.rootKey, bob.portalId, alice);
    const { reply } = await portal.exchangeAtTrpc(api, code);
    const { accessToken } = reply.data;
    expect((await portal.callAsCustomer<{ data: [] }>(api, 'portal.listKeys', {}, accessToken)).data.data).toEqual([]);
    const session = await portal.callAsCustomer<{ externalId: string }>(api, 'portal.getSession', {}, accessToken);
    expect(session.data.externalId).toBe(alice);
  });
});
