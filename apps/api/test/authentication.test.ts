import { appRouter, type ProcedureMeta } from '@keyplane/procedures';
import { beforeAll, describe, expect, it } from 'vitest';
import { publicProcedureTable } from '../src/http/procedureTable.ts';
import { ERRORS_BASE_URL, type Reply, useApi } from './harness.ts';
import { callInternal, type InternalReply } from './internal.ts';
import { callAsCustomer, createTestPortal, customerSession } from './portal.ts';

// The 401s of every procedure, generated from the router: a procedure added to it is checked
// here without a line of its own. Authentication comes before the input is read, so each call
// sends `{}`, which no procedure takes: a 401 rather than a 400 shows the order too.
const api = useApi();

/** Who each procedure takes where not a root key (`meta.auth`): portal customers, or no one (portal.exchangeCode). */
const authOf = (path: string) =>
  (appRouter._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>)[path]?._def.meta?.auth;
/** A portal customer's procedures: their 401s are generated below, for the session they take. */
const PORTAL_SESSION_PROCEDURES = Object.keys(appRouter._def.procedures).filter(
  (path) => authOf(path) === 'portalSession',
);
const PUBLIC = [...publicProcedureTable(appRouter).keys()].filter((path) => authOf(path) === undefined);
/** Called with a dashboard session, not a root key: dashboard.session.test.ts has their 401s. */
const SESSION_PROCEDURES = [
  'dashboard.session',
  'dashboard.signIn',
  'dashboard.signOut',
  // The ways in, before anyone is signed in: their own test files have their 401s.
  'account.signInOptions',
  'account.setUpOwner',
  'account.signIn',
  'account.describeInvitation',
  'account.acceptInvitation',
  'account.resetPassword',
  // Before anyone is signed in: account.passkeys.test.ts has their refusals.
  'account.passkeySignInOptions',
  'account.signInWithPasskey',
];
/** `/trpc` serves every procedure, the public ones included, to root key holders. */
const ROOT_KEY_PROCEDURES = Object.keys(appRouter._def.procedures).filter(
  (path) => !SESSION_PROCEDURES.includes(path) && authOf(path) === undefined,
);

const MALFORMED = ['Basic abc', 'Bearer', 'Bearer ', 'bearer', 'Bearer a b', 'Token kproot_x'];
const DETAIL = {
  malformed: /must have the form `Bearer <ROOT_KEY>`/,
  unknown: /could not find the requested key/,
  revoked: /has been revoked/,
  expired: /has expired/,
};

/** Root keys this server knows and refuses: one revoked, one expired (each created in beforeAll). */
const refused = { revoked: '', expired: '' };
/** Portal access tokens this server knows and refuses: one of a revoked session, one of an expired one. */
const refusedPortal = { revoked: '', expired: '' };
beforeAll(async () => {
  const workspace = await api.workspace();
  const { portalId } = await createTestPortal(api, workspace.rootKey);
  refusedPortal.revoked = (await customerSession(api, workspace.rootKey, portalId, 'revoked')).accessToken;
  await api.call('portal.revokeSession', { portal: portalId, externalId: 'revoked' }, workspace.rootKey);
  refusedPortal.expired = (await customerSession(api, workspace.rootKey, portalId, 'expired')).accessToken;
  await api
    .em()
    .getConnection()
    .execute(
      `update portal_sessions set access_expires_at = now() - interval '1 second' where external_id = 'expired'`,
    );
  const revoked = await workspace.rootKeyWith(['api.*.read_api']);
  const reply = await callInternal(api, 'rootKeys.revokeRootKey', { rootKeyId: revoked.rootKeyId }, workspace);
  if (reply.status !== 200) throw new Error(`revokeRootKey failed: ${JSON.stringify(reply.error)}`);
  refused.revoked = revoked.rootKey;
  refused.expired = (
    await workspace.rootKeyWith(['api.*.read_api'], { expiresAt: new Date(Date.now() - 1000) })
  ).rootKey;
});

/** POST `{}` to `/v2/<path>` with these headers beside the JSON content type. */
const post = (path: string, headers: Record<string, string>) =>
  api.request(`/v2/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: '{}',
  });

/** The whole `/v2` envelope of a 401: the reply was also checked against the OpenAPI document. */
function expectV2Unauthorized(reply: Reply, detail: RegExp): void {
  expect(reply.status).toBe(401);
  expect(reply.body.error).toEqual({
    title: 'Unauthorized',
    status: 401,
    type: `${ERRORS_BASE_URL}/service/authentication/unauthorized`,
    detail: expect.stringMatching(detail),
  });
  expect(reply.body.meta.requestId).toMatch(/^req_/);
  expect(reply.headers.get('x-request-id')).toBe(reply.body.meta.requestId);
}

/** A `/trpc` 401: tRPC's error shape, carrying the contract's type and the request's id. */
function expectTrpcUnauthorized(reply: InternalReply<unknown>, detail: RegExp): void {
  expect(reply.status).toBe(401);
  expect(reply.error).toMatchObject({
    message: expect.stringMatching(detail),
    data: { code: 'UNAUTHORIZED', httpStatus: 401, type: 'service/authentication/unauthorized' },
  });
  expect(reply.error?.data.requestId).toMatch(/^req_/);
  expect(reply.headers.get('x-request-id')).toBe(reply.error?.data.requestId);
}

describe.each(PUBLIC)('/v2/%s answers 401', (path) => {
  it('without an Authorization header', async () => {
    expectV2Unauthorized(await post(path, {}), /Authorization header is missing/);
  });

  it.each(MALFORMED)('with an Authorization header that is not `Bearer <token>`: %j', async (header) => {
    expectV2Unauthorized(await post(path, { Authorization: header }), DETAIL.malformed);
  });

  // Twice: first read from the database, then answered from this node's cache of unknown keys.
  it.each(['kproot_unknown', 'unknown_root_key'])('with a root key the server does not know (%s…)', async (prefix) => {
    for (let time = 0; time < 2; time++) {
      expectV2Unauthorized(await post(path, { Authorization: `Bearer ${prefix}_${path}` }), DETAIL.unknown);
    }
  });

  it.each(['revoked', 'expired'] as const)('with a %s root key', async (which) => {
    for (let time = 0; time < 2; time++) {
      expectV2Unauthorized(await post(path, { Authorization: `Bearer ${refused[which]}` }), DETAIL[which]);
    }
  });
});

describe.each(ROOT_KEY_PROCEDURES)('/trpc/%s answers 401', (path) => {
  // Without an Authorization header the caller can only be the dashboard, by its session cookie.
  it('from the dashboard without a session', async () => {
    const asDashboard = { headers: { 'x-keyplane-dashboard': '1' } };
    expectTrpcUnauthorized(await callInternal(api, path, {}, asDashboard), /not signed in/);
  });

  it.each(MALFORMED)('with an Authorization header that is not `Bearer <token>`: %j', async (header) => {
    expectTrpcUnauthorized(await callInternal(api, path, {}, { headers: { Authorization: header } }), DETAIL.malformed);
  });

  it('with a root key the server does not know', async () => {
    for (let time = 0; time < 2; time++) {
      expectTrpcUnauthorized(await callInternal(api, path, {}, { rootKey: `kproot_unknown_${path}` }), DETAIL.unknown);
    }
  });

  it.each(['revoked', 'expired'] as const)('with a %s root key', async (which) => {
    expectTrpcUnauthorized(await callInternal(api, path, {}, { rootKey: refused[which] }), DETAIL[which]);
  });
});

describe.each(PORTAL_SESSION_PROCEDURES)('%s answers 401 without a live portal session', (path) => {
  const PORTAL_DETAIL = {
    missing: /No portal session/,
    malformed: /must have the form `Bearer pat_…`/,
    ended: /portal session has ended/,
  };

  it('at /v2 without an Authorization header', async () => {
    expectV2Unauthorized(await post(path, {}), PORTAL_DETAIL.missing);
  });

  it.each([...MALFORMED, 'Bearer kproot_x'])(
    'at /v2 with an Authorization header that is no access token: %j',
    async (header) => {
      expectV2Unauthorized(await post(path, { Authorization: header }), PORTAL_DETAIL.malformed);
    },
  );

  it('at /v2 with an access token the server does not know', async () => {
    expectV2Unauthorized(await post(path, { Authorization: 'Bearer pat_unknown' }), PORTAL_DETAIL.ended);
  });

  it.each(['revoked', 'expired'] as const)('at /v2 and /trpc with the token of a %s session', async (which) => {
    expectV2Unauthorized(await post(path, { Authorization: `Bearer ${refusedPortal[which]}` }), PORTAL_DETAIL.ended);
    expectTrpcUnauthorized(await callAsCustomer(api, path, {}, refusedPortal[which]), PORTAL_DETAIL.ended);
  });

  it('at /trpc from the portal page without a cookie', async () => {
    const reply = await callInternal(api, path, {}, { headers: { 'x-keyplane-portal': '1' } });
    expectTrpcUnauthorized(reply, PORTAL_DETAIL.missing);
  });
});
