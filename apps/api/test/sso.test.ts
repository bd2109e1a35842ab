import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rows, sql } from '@keyplane/db';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SsoConfig } from '../src/http/sso.ts';
import type { Logger } from '../src/log.ts';
import { ERRORS_BASE_URL, MAX_BODY_BYTES, TEST_MASTER_KEY, useApi } from './harness.ts';
import { serveHttp, type TestServer } from './httpServer.ts';
import { callProcedure } from './internal.ts';

// The whole single sign-on flow against an OpenID provider (oidc-provider) on a loopback port,
// driven over HTTP with a cookie jar, as a browser would: Keyplane → provider's login and consent
// forms (its development interactions) → Keyplane's callback → the dashboard.

/** The provider listens before anything else, so that its issuer URL can go into the servers' settings. */
const providerServer = createServer();
await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
const CLIENT_ID = 'keyplane';
const CLIENT_SECRET = 'test-client-secret-that-never-shows';

const ssoSettings = (overrides: Partial<SsoConfig['rules']> = {}): SsoConfig => ({
  issuer,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  workspaceId: undefined,
  scopes: 'openid email profile',
  rules: {
    roleClaim: 'groups',
    roleMap: [
      { group: 'kp-owners', role: 'owner' },
      { group: 'kp-admins', role: 'admin' },
      { group: 'kp-viewers', role: 'viewer' },
    ],
    defaultRole: undefined,
    allowedDomains: ['example.test'],
    ...overrides,
  },
});

const logLines: string[] = [];
const capturingLogger: Logger = {
  info: (message, fields) => logLines.push(JSON.stringify({ message, fields })),
  error: (message, fields) => logLines.push(JSON.stringify({ message, fields })),
  request: (line) => logLines.push(JSON.stringify(line)),
};

const api = useApi({ vaultMasterKey: TEST_MASTER_KEY, logger: capturingLogger, sso: ssoSettings() });

/** The provider's people: what findAccount answers, changed by the tests between sign-ins. */
const accounts = new Map<string, { email: string; email_verified?: boolean; name: string; groups: string[] }>();

let workspaceId: string;
/** The same node, with OIDC_DEFAULT_ROLE=viewer. */
let withDefaultRole: TestServer;
/** The same node, without a role map (a provider with no groups, as Google's): OIDC_DEFAULT_ROLE=viewer. */
let withoutGroups: TestServer;
/** The same node with PUBLIC_URL set. */
let behindPublicUrl: TestServer;
/** The same node, configured with a provider nobody answers at. */
let providerDown: TestServer;
/** Every value of `code` and `state` the provider sent back, none of which may reach a page or a log. */
const secretsSeen = new Set<string>();

beforeAll(async () => {
  workspaceId = (await api.workspace()).workspaceId;
  const deps = {
    orm: api.orm,
    logger: capturingLogger,
    errorsBaseUrl: ERRORS_BASE_URL,
    maxBodyBytes: MAX_BODY_BYTES,
    vaultMasterKey: TEST_MASTER_KEY,
    readiness: api.readiness,
  };
  withDefaultRole = await serveHttp({
    ...deps,
    services: { ...api.services, team: { ...api.services.team, sso: true } },
    sso: ssoSettings({ defaultRole: 'viewer' }),
  });
  withoutGroups = await serveHttp({
    ...deps,
    services: { ...api.services, team: { ...api.services.team, sso: true } },
    sso: ssoSettings({ roleMap: [], defaultRole: 'viewer' }),
  });
  behindPublicUrl = await serveHttp({
    ...deps,
    services: {
      ...api.services,
      team: { ...api.services.team, publicUrl: 'https://keyplane.example.test', sso: true },
    },
    sso: ssoSettings(),
  });
  const closedPort = createServer();
  await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
  const nobodyThere = `http://127.0.0.1:${(closedPort.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closedPort.close(() => resolve()));
  providerDown = await serveHttp({
    ...deps,
    services: { ...api.services, team: { ...api.services.team, sso: true } },
    sso: { ...ssoSettings(), issuer: nobodyThere },
  });
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...signingKey, kid: 'test', alg: 'RS256', use: 'sig' }] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [api.url, withDefaultRole.url, withoutGroups.url].map((url) => `${url}/auth/oidc/callback`),
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
    cookies: { keys: ['cookie-signing-key-of-the-test-provider'] },
  });
  providerServer.on('request', provider.callback());
});

afterAll(async () => {
  await withDefaultRole?.close();
  await behindPublicUrl?.close();
  await withoutGroups?.close();
  await providerDown?.close();
  await new Promise<void>((resolve) => providerServer.close(() => resolve()));
});

/** Cookies by origin (the provider and Keyplane share 127.0.0.1 on different ports). */
class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  headerFor(url: URL): string {
    return [...(this.byOrigin.get(url.origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(url: URL, response: Response) {
    const cookies = this.byOrigin.get(url.origin) ?? new Map<string, string>();
    this.byOrigin.set(url.origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const expired = attributes.some(
        (attribute) =>
          /^max-age=0$/i.test(attribute) ||
          (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) < Date.now()),
      );
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  get(origin: string, name: string): string | undefined {
    return this.byOrigin.get(origin)?.get(name);
  }

  set(origin: string, name: string, value: string) {
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, cookies);
    cookies.set(name, value);
  }
}

const isCallback = (url: URL) => url.pathname === '/auth/oidc/callback';

interface Hop {
  url: URL;
  response: Response;
  body: string;
}

async function request(jar: CookieJar, url: URL, init: RequestInit = {}): Promise<Hop> {
  const headers = new Headers(init.headers);
  const cookie = jar.headerFor(url);
  if (cookie !== '') headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(url, response);
  for (const name of ['code', 'state']) {
    const value = url.searchParams.get(name);
    if (value !== null && url.pathname === '/auth/oidc/callback') secretsSeen.add(value);
  }
  return { url, response, body: await response.text() };
}

/**
 * Follows redirects and fills the provider's login and consent forms, until a Keyplane page that is
 * no redirect to the provider, or until `stopAt` is the next URL (which is then returned unvisited).
 */
async function browse(
  jar: CookieJar,
  start: URL,
  login: string,
  stopAt?: (url: URL) => boolean,
): Promise<Hop & { stoppedAt?: URL }> {
  let next: { url: URL; init?: RequestInit } = { url: start };
  for (let hops = 0; hops < 20; hops++) {
    if (stopAt?.(next.url)) return { url: next.url, response: new Response(), body: '', stoppedAt: next.url };
    const hop = await request(jar, next.url, next.init);
    // Keyplane's answer to the provider's redirect back: the end of the flow (the dashboard is not served here).
    if (isCallback(hop.url)) return hop;
    const location = hop.response.headers.get('location');
    if (hop.response.status >= 300 && hop.response.status < 400 && location !== null) {
      next = { url: new URL(location, hop.url) };
      continue;
    }
    if (hop.url.origin === issuer && hop.response.status === 200 && hop.body.includes('<form')) {
      const action = /<form[^>]*action="([^"]+)"/.exec(hop.body)?.[1];
      if (action === undefined) throw new Error(`a form without an action at ${hop.url}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(hop.body)?.[1] ?? 'consent';
      const fields: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
      next = {
        url: new URL(action.replaceAll('&amp;', '&'), hop.url),
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        },
      };
      continue;
    }
    return hop;
  }
  throw new Error('too many redirects');
}

/** Signs `login` in through SSO at `server` with a new browser; the last page and the jar. */
async function signInWithSso(login: string, server: { url: string } = api) {
  const jar = new CookieJar();
  const hop = await browse(jar, new URL('/auth/oidc/start', server.url), login);
  return { ...hop, jar, session: jar.get(new URL(server.url).origin, 'keyplane_session') };
}

/** The provider puts `login` (email `<login>@example.test`) in these groups; then they sign in at `server`. */
function signInInGroups(login: string, name: string, groups: string[], server: { url: string } = api) {
  accounts.set(login, { email: `${login}@example.test`, name, groups });
  return signInWithSso(login, server);
}

function expectRefusalPage(hop: Hop, status: number, reason: RegExp) {
  expect(hop.response.status).toBe(status);
  expect(hop.response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(hop.response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(hop.body).toMatch(reason);
  expect(hop.body).toContain('<a href="/dashboard/">Back to sign-in</a>');
  for (const secret of [...secretsSeen, CLIENT_SECRET]) expect(hop.body).not.toContain(secret);
}

async function sessionOf(session: string | undefined) {
  if (session === undefined) throw new Error('no session cookie was set');
  const reply = await callProcedure(api, 'dashboard.session', undefined, { session });
  expect(reply.status).toBe(200);
  return reply.data;
}

/** The role the dashboard's session shows after a sign-in. */
async function roleAfter(signedIn: { session?: string }) {
  return (await sessionOf(signedIn.session)).person?.role;
}

async function auditEntries(event: string, email: string) {
  return rows<{
    actor_user_id: string | null;
    actor_email: string | null;
    root_key_id: string | null;
    details: Record<string, unknown>;
  }>(
    api.em(),
    sql`select actor_user_id, actor_email, root_key_id, details from audit_events
        where workspace_id = ${workspaceId} and event = ${event}
          and (actor_email = ${email} or details->>'email' = ${email})
        order by id`,
  );
}

describe('a person in a mapped group', () => {
  it('is signed in with the role their group maps to, lands on the dashboard, and the sign-in is audited', async () => {
    accounts.set('alice', {
      email: 'alice@example.test',
      email_verified: true,
      name: 'Alice A',
      groups: ['kp-admins', 'kp-viewers'],
    });
    const signedIn = await signInWithSso('alice');
    expect(signedIn.response.status).toBe(303);
    expect(signedIn.response.headers.get('location')).toBe('/dashboard/');
    expect(signedIn.response.headers.getSetCookie().join('\n')).toMatch(
      /keyplane_session=p\.[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax/,
    );
    const session = await sessionOf(signedIn.session);
    expect(session).toMatchObject({
      workspaceId,
      rootKeyId: null,
      person: { email: 'alice@example.test', name: 'Alice A', role: 'admin' },
    });
    const [entry] = await auditEntries('account.signIn', 'alice@example.test');
    expect(entry).toMatchObject({
      root_key_id: null,
      actor_user_id: session.person?.userId,
      details: { method: 'sso', changes: [{ resource: 'userId', field: 'role', before: null, after: 'admin' }] },
    });
  });

  it('made an account without a password, which the next sign-in finds by its email', async () => {
    accounts.set('alice-again', { email: 'ALICE@example.test', name: 'Alice A', groups: ['kp-admins'] });
    const signedIn = await signInWithSso('alice-again');
    const session = await sessionOf(signedIn.session);
    expect(session.person?.email).toBe('alice@example.test');
    const users = await rows<{ password_hash: string | null }>(
      api.em(),
      sql`select password_hash from users where lower(email) = 'alice@example.test'`,
    );
    expect(users).toEqual([{ password_hash: null }]);
  });

  it('gets the role their groups give at each sign-in, when they move to another group', async () => {
    expect(await roleAfter(await signInInGroups('dave', 'Dave', ['kp-viewers']))).toBe('viewer');
    expect(await roleAfter(await signInInGroups('dave', 'Dave', ['kp-admins']))).toBe('admin');
    expect(await roleAfter(await signInInGroups('dave', 'Dave', ['kp-viewers']))).toBe('viewer');
    const entries = await auditEntries('account.signIn', 'dave@example.test');
    expect(entries.map((entry) => entry.details.changes)).toEqual([
      [{ resource: 'userId', field: 'role', before: null, after: 'viewer' }],
      [{ resource: 'userId', field: 'role', before: 'viewer', after: 'admin' }],
      [{ resource: 'userId', field: 'role', before: 'admin', after: 'viewer' }],
    ]);
  });

  it('is not demoted when they are the last owner: the page says why, and they stay owner', async () => {
    expect(await roleAfter(await signInInGroups('erin', 'Erin', ['kp-owners']))).toBe('owner');
    const refused = await signInInGroups('erin', 'Erin', ['kp-viewers']);
    expectRefusalPage(refused, 403, /last owner of this workspace.*role viewer/);
    expect(refused.session).toBeUndefined();
    const [membership] = await rows<{ role: string }>(
      api.em(),
      sql`select m.role from memberships m join users u on u.id = m.user_id where u.email = 'erin@example.test'`,
    );
    expect(membership?.role).toBe('owner');
    const [failure] = await auditEntries('account.signInFailed', 'erin@example.test');
    expect(failure).toMatchObject({ actor_email: 'erin@example.test', details: { method: 'sso' } });
  });
});

describe('403 refusals', () => {
  it('refuses an email domain outside OIDC_ALLOWED_DOMAINS with a page saying so, and audits it', async () => {
    accounts.set('mallory', { email: 'mallory@elsewhere.test', name: 'Mallory', groups: ['kp-admins'] });
    const refused = await signInWithSso('mallory');
    expectRefusalPage(refused, 403, /address at elsewhere\.test may not sign in/);
    expect(refused.session).toBeUndefined();
    const users = await rows(api.em(), sql`select id from users where email = 'mallory@elsewhere.test'`);
    expect(users).toEqual([]);
    const [failure] = await auditEntries('account.signInFailed', 'mallory@elsewhere.test');
    expect(failure).toMatchObject({
      actor_user_id: null,
      root_key_id: null,
      details: {
        method: 'sso',
        email: 'mallory@elsewhere.test',
        reason: expect.stringMatching(/elsewhere\.test may not/),
      },
    });
  });

  it('refuses a person in no mapped group when OIDC_DEFAULT_ROLE is unset', async () => {
    const refused = await signInInGroups('carol', 'Carol', ['sales']);
    expectRefusalPage(refused, 403, /in none of the groups that give access to Keyplane/);
    expect(refused.session).toBeUndefined();
  });

  it('gives a person in no mapped group OIDC_DEFAULT_ROLE when it is set', async () => {
    const signedIn = await signInInGroups('carol', 'Carol', ['sales'], withDefaultRole);
    expect(signedIn.response.status).toBe(303);
    expect((await sessionOf(signedIn.session)).person).toMatchObject({ email: 'carol@example.test', role: 'viewer' });
  });

  it('without a role map, gives newcomers OIDC_DEFAULT_ROLE and leaves members the role set in Keyplane', async () => {
    accounts.set('gina', { email: 'gina@example.test', name: 'Gina', groups: [] });
    const first = await sessionOf((await signInWithSso('gina', withoutGroups)).session);
    expect(first.person?.role).toBe('viewer');
    await rows(api.em(), sql`update memberships set role = 'admin' where user_id = ${first.person?.userId ?? ''}`);
    const again = await sessionOf((await signInWithSso('gina', withoutGroups)).session);
    expect(again.person?.role).toBe('admin');
  });

  it('refuses an email the provider says is not verified', async () => {
    accounts.set('victor', {
      email: 'victor@example.test',
      email_verified: false,
      name: 'Victor',
      groups: ['kp-admins'],
    });
    expectRefusalPage(await signInWithSso('victor'), 403, /victor@example\.test is not verified/);
  });
});

describe('the provider', () => {
  it('refusing the sign-in (the person cancels there) is a page naming its error code', async () => {
    const jar = new CookieJar();
    const atLogin = await browse(jar, new URL('/auth/oidc/start', api.url), 'nobody', (url) =>
      url.pathname.startsWith('/interaction/'),
    );
    const login = atLogin.stoppedAt as URL;
    await request(jar, login);
    const cancelled = await browse(jar, new URL(`${login.pathname}/abort`, issuer), 'nobody');
    expectRefusalPage(cancelled, 403, /Your identity provider did not sign you in \(access_denied\)/);
    expect(jar.get(new URL(api.url).origin, 'keyplane_session')).toBeUndefined();
  });

  it('out of reach is a page saying so, at the start', async () => {
    const started = await request(new CookieJar(), new URL('/auth/oidc/start', providerDown.url));
    expectRefusalPage(started, 502, /could not talk to the single sign-on provider/);
  });
});

describe('400 broken or replayed flows', () => {
  it('refuses a callback replayed after it signed the person in', async () => {
    accounts.set('rita', { email: 'rita@example.test', name: 'Rita', groups: ['kp-viewers'] });
    const jar = new CookieJar();
    const atCallback = await browse(jar, new URL('/auth/oidc/start', api.url), 'rita', isCallback);
    const callback = atCallback.stoppedAt as URL;
    const origin = new URL(api.url).origin;
    const flowCookie = jar.get(origin, 'keyplane_oidc') as string;
    const first = await request(jar, callback);
    expect(first.response.status).toBe(303);
    expect(jar.get(origin, 'keyplane_oidc')).toBeUndefined();
    const replayed = await request(jar, callback);
    expectRefusalPage(replayed, 400, /expired/);
    // Even with the spent flow cookie presented again, the provider does not take the code twice.
    jar.set(origin, 'keyplane_oidc', flowCookie);
    expectRefusalPage(await request(jar, callback), 400, /could not be completed/);
  });

  it('refuses a callback whose state is not that of the sign-in under way in this browser', async () => {
    accounts.set('sam', { email: 'sam@example.test', name: 'Sam', groups: ['kp-viewers'] });
    const jar = new CookieJar();
    const firstFlow = await browse(jar, new URL('/auth/oidc/start', api.url), 'sam', isCallback);
    // A second sign-in started meanwhile (another tab): its flow cookie replaces the first.
    await request(jar, new URL('/auth/oidc/start', api.url));
    const mismatched = await request(jar, firstFlow.stoppedAt as URL);
    expectRefusalPage(mismatched, 400, /does not match the sign-in started here/);
    expect(jar.get(new URL(api.url).origin, 'keyplane_session')).toBeUndefined();
  });

  it('refuses a callback with no sign-in under way, or a flow cookie not signed by the server', async () => {
    const jar = new CookieJar();
    const callback = new URL('/auth/oidc/callback?code=made-up&state=made-up', api.url);
    expectRefusalPage(await request(jar, callback), 400, /expired/);
    await request(jar, new URL('/auth/oidc/start', api.url));
    const origin = new URL(api.url).origin;
    const [payload = '', signature = ''] = (jar.get(origin, 'keyplane_oidc') ?? '').split('.');
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    forged.state = 'made-up';
    jar.set(origin, 'keyplane_oidc', `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`);
    expectRefusalPage(await request(jar, callback), 400, /expired/);
  });
});

describe('the start', () => {
  it('sends the browser to the provider with PKCE, state, nonce, the scopes and the redirect URI on the request origin', async () => {
    const jar = new CookieJar();
    const started = await request(jar, new URL('/auth/oidc/start', api.url));
    expect(started.response.status).toBe(302);
    const to = new URL(started.response.headers.get('location') ?? '');
    expect(to.origin).toBe(issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: CLIENT_ID,
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: `${api.url}/auth/oidc/callback`,
      code_challenge_method: 'S256',
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(name)).toMatch(/^[\w-]{20,}$/);
    const flowCookie = started.response.headers.getSetCookie().find((line) => line.startsWith('keyplane_oidc='));
    expect(flowCookie).toMatch(/; Max-Age=600; Path=\/auth\/oidc; HttpOnly; SameSite=Lax$/);
  });

  it('makes the redirect URI on PUBLIC_URL when it is set, and marks the flow cookie Secure behind HTTPS', async () => {
    const started = await fetch(`${behindPublicUrl.url}/auth/oidc/start`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https' },
    });
    const to = new URL(started.headers.get('location') ?? '');
    expect(to.searchParams.get('redirect_uri')).toBe('https://keyplane.example.test/auth/oidc/callback');
    expect(started.headers.getSetCookie().join('\n')).toMatch(/keyplane_oidc=[^;]+;.*; Secure/);
  });
});

describe('secrets', () => {
  it('writes no authorization code, state or client secret in any log line', () => {
    expect(secretsSeen.size).toBeGreaterThan(5);
    const log = logLines.join('\n');
    for (const secret of [...secretsSeen, CLIENT_SECRET]) expect(log).not.toContain(secret);
  });
});
