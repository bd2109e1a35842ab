import { SIGN_IN_FAILURES_ALLOWED } from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serveOn } from '../appVariants.ts';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';

// dashboard.signIn / session / signOut: the browser trades a root key for a signed, HTTP-only cookie.
const { api, workspace } = useApiWithWorkspace();
const asBrowser = { headers: { 'x-keyplane-dashboard': '1' } };

const sessionOf = (session: string) => callProcedure(api, 'dashboard.session', undefined, { session });

describe('200', () => {
  it('signs in with a root key that manages root keys, setting an HTTP-only, SameSite=strict cookie', async () => {
    const reply = await callProcedure(api, 'dashboard.signIn', { rootKey: workspace.rootKey }, asBrowser);
    expect(reply.status).toBe(200);
    expect(reply.data.workspaceId).toBe(workspace.workspaceId);
    const [cookie] = reply.setCookie;
    expect(cookie).toMatch(
      /^keyplane_session=[\w-]{43}\.[\w-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(workspace.rootKey);
    expect(JSON.stringify(reply.data)).not.toContain(workspace.rootKey);
  });

  it('answers who is signed in for the cookie alone, with no Authorization header', async () => {
    const { rootKeyId, rootKey } = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api']);
    const session = await signIn(api, rootKey);
    const reply = await callProcedure(api, 'dashboard.session', undefined, { session });
    expect(reply.status).toBe(200);
    expect(reply.data).toMatchObject({
      workspaceId: workspace.workspaceId,
      rootKeyId,
      permissions: ['workspace.*.manage_root_keys', 'api.*.read_api'],
    });
  });

  it('lets the session call procedures with the root key permissions', async () => {
    const session = await signIn(api, workspace.rootKey);
    const created = await callProcedure(api, 'apis.createApi', { name: 'from-dashboard' }, { session });
    expect(created.status).toBe(200);
    const read = await callProcedure(api, 'apis.getApi', { apiId: created.data.apiId }, { session });
    expect(read.data.name).toBe('from-dashboard');
  });

  it('signs out: the cookie is cleared and the session is ended on the server', async () => {
    const session = await signIn(api, workspace.rootKey);
    const reply = await callInternal(api, 'dashboard.signOut', undefined, { session });
    expect(reply.status).toBe(200);
    expect(reply.setCookie).toEqual(['keyplane_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict']);
    expect((await sessionOf(session)).status).toBe(401);
  });

  it('marks the cookie Secure behind TLS', async () => {
    const reply = await callInternal(
      api,
      'dashboard.signIn',
      { rootKey: workspace.rootKey },
      { headers: { 'x-keyplane-dashboard': '1', 'x-forwarded-proto': 'https' } },
    );
    expect(reply.setCookie[0]).toMatch(/; Secure$/);
  });
});

describe('400', () => {
  it('without a root key', async () => {
    const reply = await callInternal(api, 'dashboard.signIn', {}, asBrowser);
    expect(reply.status).toBe(400);
    expect(reply.setCookie).toEqual([]);
  });

  it('from a caller with an Authorization header (no cookie transport)', async () => {
    const reply = await callInternal(
      api,
      'dashboard.signIn',
      { rootKey: workspace.rootKey },
      { rootKey: workspace.rootKey },
    );
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/only available to the dashboard/);
  });
});

describe('401', () => {
  it('signing in with an unknown, revoked or expired root key', async () => {
    const revoked = await workspace.rootKeyWith(['workspace.*.manage_root_keys']);
    await callInternal(api, 'rootKeys.revokeRootKey', { rootKeyId: revoked.rootKeyId }, { rootKey: workspace.rootKey });
    const expired = await workspace.rootKeyWith(['workspace.*.manage_root_keys'], {
      expiresAt: new Date(Date.now() - 1000),
    });
    for (const rootKey of ['kproot_unknown', revoked.rootKey, expired.rootKey]) {
      const reply = await callInternal(api, 'dashboard.signIn', { rootKey }, asBrowser);
      expect(reply.status).toBe(401);
      expect(reply.setCookie).toEqual([]);
    }
  });

  it('with no session, a forged cookie or a cookie signed by another service', async () => {
    const session = await signIn(api, workspace.rootKey);
    const [token] = session.split('.');
    for (const presented of ['', 'garbage', `${token}.${'A'.repeat(43)}`]) {
      const reply = await sessionOf(presented);
      expect(reply.status).toBe(401);
      expect(reply.error?.message).toMatch(/session has expired or ended/);
    }
    expect(await callInternal(api, 'dashboard.session', undefined, asBrowser)).toMatchObject({
      status: 401,
      error: { message: expect.stringMatching(/not signed in/) },
    });
  });

  it('once the session has expired', async () => {
    const session = await signIn(api, workspace.rootKey);
    expect((await sessionOf(session)).status).toBe(200);
    await rows(api.em(), sql`update dashboard_sessions set expires_at = now() - interval '1 second'`);
    expect((await sessionOf(session)).status).toBe(401);
  });

  it('at once when the root key it was opened with is revoked or expires', async () => {
    const revoked = await workspace.rootKeyWith(['workspace.*.manage_root_keys']);
    const expiring = await workspace.rootKeyWith(['workspace.*.manage_root_keys']);
    const revokedSession = await signIn(api, revoked.rootKey);
    const expiringSession = await signIn(api, expiring.rootKey);
    const admin = { rootKey: workspace.rootKey };
    await callInternal(api, 'rootKeys.revokeRootKey', { rootKeyId: revoked.rootKeyId }, admin);
    await callInternal(api, 'rootKeys.updateRootKey', { rootKeyId: expiring.rootKeyId, expires: Date.now() }, admin);
    // The answer says why, for the dashboard's sign-in page to show.
    expect(await sessionOf(revokedSession)).toMatchObject({
      status: 401,
      error: { message: expect.stringMatching(/root key you signed in with was revoked/) },
    });
    expect(await sessionOf(expiringSession)).toMatchObject({
      status: 401,
      error: { message: expect.stringMatching(/root key you signed in with has expired/) },
    });
  });
});

describe('403', () => {
  it('signing in with a root key that cannot manage root keys', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api', 'api.*.create_api']);
    const reply = await callInternal(api, 'dashboard.signIn', { rootKey }, asBrowser);
    expectInternalMissingPermissions(reply, 'workspace.*.manage_root_keys');
    expect(reply.setCookie).toEqual([]);
  });

  it('a session call without the dashboard header (a cross-site form or script)', async () => {
    const session = await signIn(api, workspace.rootKey);
    const response = await api.fetch('/trpc/apis.createApi', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `keyplane_session=${session}` },
      body: JSON.stringify({ name: 'csrf' }),
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { type: string; detail: string } };
    expect(body.error.type).toBe('https://errors.test/service/authorization/cross_site_request');
    expect(body.error.detail).toMatch(/x-keyplane-dashboard/);
  });

  it('a session call from another origin', async () => {
    const session = await signIn(api, workspace.rootKey);
    const reply = await callInternal(
      api,
      'apis.createApi',
      { name: 'csrf' },
      {
        headers: { Cookie: `keyplane_session=${session}`, 'x-keyplane-dashboard': '1', Origin: 'https://evil.example' },
      },
    );
    expect(reply.status).toBe(403);
  });

  it('a sign-in from another origin (login CSRF)', async () => {
    const reply = await callInternal(
      api,
      'dashboard.signIn',
      { rootKey: workspace.rootKey },
      {
        headers: { 'x-keyplane-dashboard': '1', Origin: 'https://evil.example' },
      },
    );
    expect(reply.status).toBe(403);
    expect(reply.setCookie).toEqual([]);
  });

  it('accepts a same-origin call', async () => {
    const session = await signIn(api, workspace.rootKey);
    const reply = await callInternal(api, 'dashboard.session', undefined, {
      headers: { Cookie: `keyplane_session=${session}`, 'x-keyplane-dashboard': '1', Origin: api.url },
    });
    expect(reply.status).toBe(200);
  });
});

describe('429', () => {
  const THROTTLED = 'user/too_many_requests/sign_in_throttled';
  // Behind a trusted proxy each test signs in from an address of its own (X-Forwarded-For).
  const fromAddress = async (address: string) => {
    const server = await serveOn(api, { trustProxy: { hops: 1 } });
    onTestFinished(() => server.close());
    return (rootKey: string) =>
      callInternal(
        server,
        'dashboard.signIn',
        { rootKey },
        { headers: { ...asBrowser.headers, 'X-Forwarded-For': address } },
      );
  };

  it(`refuses an address after ${SIGN_IN_FAILURES_ALLOWED} failed sign-ins, even with a good root key`, async () => {
    const signInFrom = await fromAddress('198.51.100.7');
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await signInFrom('kproot_guessed')).status).toBe(401);
    }
    const refused = await signInFrom(workspace.rootKey);
    expect(refused.status).toBe(429);
    expect(refused.error?.data.type).toBe(THROTTLED);
    expect(refused.error?.message).toMatch(/^Too many failed sign-ins from this address\. Try again in \d+ s\.$/);
    expect(refused.setCookie).toEqual([]);
  });

  it('counts refusals for a missing permission too, and never successes', async () => {
    const signInFrom = await fromAddress('198.51.100.8');
    const { rootKey: narrow } = await workspace.rootKeyWith(['api.*.read_api']);
    for (let attempt = 0; attempt < 2 * SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await signInFrom(workspace.rootKey)).status).toBe(200);
    }
    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      expect((await signInFrom(narrow)).status).toBe(403);
    }
    expect((await signInFrom(workspace.rootKey)).error?.data.type).toBe(THROTTLED);
  });

  it('throttles one address without touching another', async () => {
    const attacker = await fromAddress('198.51.100.9');
    for (let attempt = 0; attempt <= SIGN_IN_FAILURES_ALLOWED; attempt++) await attacker('kproot_guessed');
    expect((await attacker(workspace.rootKey)).status).toBe(429);
    const neighbour = await fromAddress('198.51.100.10');
    expect((await neighbour(workspace.rootKey)).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  it('a session acts only in its own workspace', async () => {
    const other = await api.workspace();
    const { apiId } = (await callProcedure(api, 'apis.createApi', { name: 'theirs' }, { rootKey: other.rootKey })).data;
    const session = await signIn(api, workspace.rootKey);
    expect((await callInternal(api, 'apis.getApi', { apiId }, { session })).status).toBe(404);
  });
});

describe('/v2', () => {
  it('does not serve the dashboard procedures', async () => {
    expect((await api.post('dashboard.signIn', { rootKey: workspace.rootKey })).status).toBe(404);
  });
});
