import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Env as Config } from '@keyplane/config';
import { applySsoRole, decideSsoSignIn, type SsoMembershipStore, type SsoRules, type TeamRole } from '@keyplane/core';
import {
  createMembership,
  createUser,
  type EntityManager,
  findOldestWorkspace,
  findUserByEmail,
  findWorkspace,
  membershipChangeStore,
  type Orm,
  recordAuditEvent,
} from '@keyplane/db';
import { type Services, startPersonSession } from '@keyplane/procedures';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as oidc from 'openid-client';
import type { Logger } from '../log.ts';
import { cookieSessionCarrier, requestOriginOf } from './sessionCookie.ts';

/** Single sign-on with an OpenID provider (docs/team-accounts.md#single-sign-on-oidc). */
export interface SsoConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** OIDC_WORKSPACE; undefined: the oldest workspace not deleted. */
  workspaceId: string | undefined;
  /** OIDC_SCOPES, space-separated. */
  scopes: string;
  rules: SsoRules;
}

/** The SSO settings of the environment; undefined when single sign-on is not configured. */
export function ssoConfigOf(env: Config): SsoConfig | undefined {
  if (env.OIDC_ISSUER === undefined || env.OIDC_CLIENT_ID === undefined || env.OIDC_CLIENT_SECRET === undefined) {
    return undefined;
  }
  return {
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    workspaceId: env.OIDC_WORKSPACE,
    scopes: env.OIDC_SCOPES,
    rules: {
      roleClaim: env.OIDC_ROLE_CLAIM,
      roleMap: env.OIDC_ROLE_MAP,
      defaultRole: env.OIDC_DEFAULT_ROLE,
      allowedDomains: env.OIDC_ALLOWED_DOMAINS,
    },
  };
}

export const SSO_CALLBACK_PATH = '/auth/oidc/callback';
/** Holds one sign-in's state, nonce and PKCE verifier between the redirect to the provider and its answer. */
const FLOW_COOKIE = 'keyplane_oidc';
const FLOW_COOKIE_PATH = '/auth/oidc';
/** How long a person has at their provider to sign in. */
const FLOW_LIFETIME_MS = 10 * 60 * 1000;
/** The provider's metadata is read again after this, so that a change of endpoints is picked up. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** Seconds openid-client waits for each request to the provider. */
const PROVIDER_TIMEOUT_S = 10;
/** What the flow cookie's signature covers besides the flow, so that no other signed value of this key passes as one. */
const FLOW_SIGNATURE_CONTEXT = 'keyplane-oidc-flow.';

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

export interface SsoDeps {
  orm: Orm;
  logger: Logger;
  services: Services;
  sso: SsoConfig;
  clientAddressOf(incoming: IncomingMessage): string | undefined;
}

type Env = { Bindings: HttpBindings };

/** `GET /auth/oidc/start` and `GET /auth/oidc/callback`, to mount at `/auth/oidc`. */
export function ssoRoutes(deps: SsoDeps): Hono<Env> {
  const { sso, services, logger } = deps;
  const configuration = discoveryCache(sso);
  const app = new Hono<Env>();

  app.get('/start', async (c) => {
    const workspace = await ssoWorkspace(deps.orm.em.fork(), sso);
    if (workspace === undefined) return misconfigured(c, logger, sso);
    let config: oidc.Configuration;
    try {
      config = await configuration();
    } catch (error) {
      return unreachable(c, logger, error);
    }
    const flow: Flow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      redirectUri: `${services.team.publicUrl ?? requestOriginOf(c.req.raw)}${SSO_CALLBACK_PATH}`,
      expiresAt: services.now() + FLOW_LIFETIME_MS,
    };
    const to = oidc.buildAuthorizationUrl(config, {
      redirect_uri: flow.redirectUri,
      scope: sso.scopes,
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
    });
    setCookie(c, FLOW_COOKIE, sealFlow(services.sessionSigningKey, flow), {
      path: FLOW_COOKIE_PATH,
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level navigation from another site.
      sameSite: 'Lax',
      secure: isSecure(c),
      maxAge: FLOW_LIFETIME_MS / 1000,
    });
    c.header('cache-control', 'no-store');
    return c.redirect(to.href, 302);
  });

  app.get('/callback', async (c) => {
    // One use only: whatever happens next, this sign-in's cookie is spent.
    const flow = openFlow(services.sessionSigningKey, getCookie(c, FLOW_COOKIE), services.now());
    deleteCookie(c, FLOW_COOKIE, { path: FLOW_COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure: isSecure(c) });
    if (flow === undefined) {
      return page(c, 400, 'This sign-in has expired', [
        'This single sign-on answer belongs to no sign-in under way here: it took more than 10 minutes, was used already, or was started in another browser. Start again.',
      ]);
    }
    let config: oidc.Configuration;
    try {
      config = await configuration();
    } catch (error) {
      return unreachable(c, logger, error);
    }
    // The redirect URI as the provider was given it (the request may reach us through a proxy).
    const answer = new URL(flow.redirectUri);
    answer.search = new URL(c.req.url).search;
    let claims: Record<string, unknown>;
    let userinfo: Record<string, unknown> | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, answer, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      if (config.serverMetadata().userinfo_endpoint !== undefined) {
        userinfo = { ...(await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
      }
    } catch (error) {
      return failedExchange(c, logger, error);
    }

    const em = deps.orm.em.fork();
    const workspace = await ssoWorkspace(em, sso);
    if (workspace === undefined) return misconfigured(c, logger, sso);
    const audit = auditOf(em, workspace.id, deps.clientAddressOf(c.env.incoming));
    const decision = decideSsoSignIn(claims, userinfo, sso.rules);
    if (!decision.accepted) {
      await audit.refused(decision.email, decision.reason);
      return page(c, 403, 'Single sign-on refused', [decision.reason]);
    }

    const cookies = new Headers();
    const signedIn = await em.transactional(async (tx) => {
      const userId = await userFor(tx, decision.email, decision.name);
      const outcome = await applySsoRole(ssoMembershipStore(tx), {
        workspaceId: workspace.id,
        userId,
        role: decision.role,
        // Without a role map the provider's answer says nothing of roles: those set in Keyplane stay.
        joiningOnly: sso.rules.roleMap.length === 0,
      });
      if (!outcome.applied) return { userId, refusal: outcome.reason };
      await startPersonSession({ em: tx, services }, cookieSessionCarrier(c, cookies), {
        userId,
        workspaceId: workspace.id,
      });
      await auditOf(tx, workspace.id, deps.clientAddressOf(c.env.incoming)).signedIn(
        { userId, email: decision.email },
        outcome.previousRole,
        outcome.role ?? decision.role,
      );
      return { userId, refusal: undefined };
    });
    if (signedIn.refusal !== undefined) {
      await audit.refused(decision.email, signedIn.refusal);
      return page(c, 403, 'Single sign-on refused', [signedIn.refusal]);
    }
    for (const cookie of cookies.getSetCookie()) c.header('set-cookie', cookie, { append: true });
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.redirect('/dashboard/', 303);
  });

  return app;
}

/** The provider's configuration, discovered once and kept (again after a failure, or after DISCOVERY_TTL_MS). */
function discoveryCache(sso: SsoConfig): () => Promise<oidc.Configuration> {
  let cached: { config: Promise<oidc.Configuration>; at: number } | undefined;
  return () => {
    if (cached === undefined || Date.now() - cached.at > DISCOVERY_TTL_MS) {
      const config = oidc.discovery(
        new URL(sso.issuer),
        sso.clientId,
        sso.clientSecret,
        oidc.ClientSecretBasic(sso.clientSecret),
        // An http issuer is the operator's choice (a provider on a private network, tests).
        { timeout: PROVIDER_TIMEOUT_S, execute: sso.issuer.startsWith('http:') ? [oidc.allowInsecureRequests] : [] },
      );
      const entry = { config, at: Date.now() };
      cached = entry;
      config.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.config;
  };
}

async function ssoWorkspace(em: EntityManager, sso: SsoConfig) {
  return sso.workspaceId === undefined ? findOldestWorkspace(em) : findWorkspace(em, sso.workspaceId);
}

/** The account with this email, made (without a password) if there is none. */
async function userFor(tx: EntityManager, email: string, name: string): Promise<string> {
  const found = await findUserByEmail(tx, email);
  if (found !== undefined) return found.userId;
  const created = await createUser(tx, { email, name, passwordHash: null });
  if (created !== undefined) return created;
  // Made meanwhile by another sign-in.
  const made = await findUserByEmail(tx, email);
  if (made === undefined) throw new Error('an account that exists could not be found by its email');
  return made.userId;
}

function ssoMembershipStore(tx: EntityManager): SsoMembershipStore {
  const changes = membershipChangeStore(tx);
  return {
    lockMemberships: (workspaceId) => changes.lockMemberships(workspaceId),
    setMemberRole: (workspaceId, userId, role) => changes.setMemberRole(workspaceId, userId, role),
    async addMember(workspaceId, userId, role) {
      await createMembership(tx, { workspaceId, userId, role });
    },
  };
}

/** The audit log's record of SSO sign-ins and refusals, attributed to the person where they have an account. */
function auditOf(em: EntityManager, workspaceId: string, clientAddress: string | undefined) {
  return {
    async signedIn(actor: { userId: string; email: string }, before: TeamRole | undefined, after: TeamRole) {
      await recordAuditEvent(em, {
        workspaceId,
        rootKeyId: null,
        actor,
        event: 'account.signIn',
        resources: { userId: actor.userId },
        details: {
          method: 'sso',
          ...(before === after
            ? {}
            : { changes: [{ resource: 'userId', field: 'role', before: before ?? null, after }] }),
        },
        clientAddress,
      });
    },
    async refused(email: string | undefined, reason: string) {
      const user = email === undefined ? undefined : await findUserByEmail(em, email);
      await recordAuditEvent(em, {
        workspaceId,
        rootKeyId: null,
        actor: user && { userId: user.userId, email: user.email },
        event: 'account.signInFailed',
        resources: user ? { userId: user.userId } : {},
        details: { method: 'sso', reason, ...(email === undefined ? {} : { email }) },
        clientAddress,
      });
    },
  };
}

function isSecure(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

const signatureOf = (key: Uint8Array, payload: string) =>
  createHmac('sha256', key)
    .update(FLOW_SIGNATURE_CONTEXT + payload)
    .digest('base64url');

function sealFlow(key: Uint8Array, flow: Flow): string {
  const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
  return `${payload}.${signatureOf(key, payload)}`;
}

/** The flow a cookie carries, if this service signed it and it has not expired. */
function openFlow(key: Uint8Array, value: string | undefined, now: number): Flow | undefined {
  const [payload = '', signature = '', extra] = (value ?? '').split('.');
  if (payload === '' || extra !== undefined) return undefined;
  const expected = Buffer.from(signatureOf(key, payload));
  const presented = Buffer.from(signature);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  try {
    const flow = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Flow;
    return typeof flow.expiresAt === 'number' && flow.expiresAt > now ? flow : undefined;
  } catch {
    return undefined;
  }
}

/** What a failure says in a log line: its kind and code, never the tokens or codes the exchange carried. */
function failureFields(error: unknown): Record<string, string> {
  if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
    return { failure: error.name, error: error.error };
  }
  if (error instanceof Error) {
    return { failure: error.name, message: error.message, ...('code' in error ? { code: String(error.code) } : {}) };
  }
  return { failure: typeof error };
}

const UNREACHABLE_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
]);

function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError && error.message === 'fetch failed') return true;
  return error instanceof oidc.ClientError && error.code !== undefined && UNREACHABLE_CODES.has(error.code);
}

function unreachable(c: Context, logger: Logger, error: unknown) {
  logger.error('single sign-on: the OpenID provider could not be reached', failureFields(error));
  return page(c, 502, 'Your identity provider could not be reached', [
    'Keyplane could not talk to the single sign-on provider just now. Try again in a moment; if it keeps failing, tell your administrator.',
  ]);
}

function misconfigured(c: Context, logger: Logger, sso: SsoConfig) {
  logger.error('single sign-on: OIDC_WORKSPACE names no workspace (or there is none yet)', {
    OIDC_WORKSPACE: sso.workspaceId ?? '(unset: the oldest workspace)',
  });
  return page(c, 500, 'Single sign-on is not set up', [
    'There is no workspace for people signing in with single sign-on to join. Tell your administrator (OIDC_WORKSPACE).',
  ]);
}

function failedExchange(c: Context, logger: Logger, error: unknown) {
  if (isUnreachable(error)) return unreachable(c, logger, error);
  if (error instanceof oidc.AuthorizationResponseError) {
    logger.info('single sign-on: the provider refused the sign-in', failureFields(error));
    // Only the error code, which is a fixed word: the provider's own description is text a link can forge.
    const code = /^[a-z_]{1,64}$/.test(error.error) ? ` (${error.error})` : '';
    return page(c, 403, 'Single sign-on refused', [`Your identity provider did not sign you in${code}.`]);
  }
  if (error instanceof oidc.ClientError || error instanceof oidc.ResponseBodyError || error instanceof TypeError) {
    logger.info('single sign-on: the answer did not complete a sign-in', failureFields(error));
    return page(c, 400, 'This sign-in could not be completed', [
      'The answer from your identity provider does not match the sign-in started here (it may have been used already, or belong to another tab). Start again.',
    ]);
  }
  throw error;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A page a person reads: what happened and the way back to the sign-in page. Never a token or code. */
function page(c: Context, status: 400 | 403 | 500 | 502, title: string, paragraphs: string[]) {
  c.header('cache-control', 'no-store');
  // The callback's address holds the authorization code: no link from here may pass it on.
  c.header('referrer-policy', 'no-referrer');
  c.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  c.header('x-content-type-options', 'nosniff');
  const body = paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('\n');
  return c.html(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Keyplane</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2937}h1{font-size:1.4rem}a{color:#2563eb}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
<p><a href="/dashboard/">Back to sign-in</a></p>
</main>
</body>
</html>
`,
    status,
  );
}
