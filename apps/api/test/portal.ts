import { beforeAll, expect, it } from 'vitest';
import { expectProblem } from './assertions.ts';
import { filledBeforeAll } from './filledBeforeAll.ts';
import { type Api, createTestApi, type TestWorkspace } from './harness.ts';
import { callInternal, type InternalReply } from './internal.ts';
import type { InputOf } from './procedures.ts';

// What the portal's tests share (docs/portal.md): a portal, a customer's session, calls as the customer.

export const ALL_SCOPES = [
  'keys:read',
  'keys:create',
  'keys:reroll',
  'keys:update',
  'keys:delete',
  'analytics:read',
] as const;

/** A portal on a new API of the workspace; answers both ids. */
export async function createTestPortal(
  api: Api,
  rootKey: string,
  input: Partial<InputOf<'portal.createPortal'>> = {},
): Promise<{ portalId: string; apiId: string }> {
  const apiId = input.apiId ?? (await createTestApi(api, rootKey));
  const reply = await api.call('portal.createPortal', { displayName: 'Acme', ...input, apiId }, rootKey);
  if (reply.status !== 200) throw new Error(`createPortal failed: ${JSON.stringify(reply.body)}`);
  return { portalId: reply.body.data.portalId, apiId };
}

/** A new portal of the workspace, and a root key of it holding only `grants` (which may name that portal or its API). */
export async function portalAndKey(
  api: Api,
  workspace: TestWorkspace,
  grants: (portal: { portalId: string; apiId: string }) => string[],
): Promise<{ portalId: string; apiId: string; rootKey: string }> {
  const portal = await createTestPortal(api, workspace.rootKey);
  const { rootKey } = await workspace.rootKeyWith(grants(portal));
  return { ...portal, rootKey };
}

/** Ids of portals a workspace's root key cannot reach: one that never was, one it deleted, another workspace's. */
export async function unreachablePortalIds(api: Api, rootKey: string): Promise<string[]> {
  const { portalId: deleted } = await createTestPortal(api, rootKey);
  await api.call('portal.deletePortal', { portalId: deleted }, rootKey);
  const other = await api.workspace();
  const { portalId: othersPortal } = await createTestPortal(api, other.rootKey);
  return ['pc_missing', deleted, othersPortal];
}

/** The 404 of a portal the caller cannot reach, the same whether it never was, is deleted or is another's. */
export function expectPortalNotFound(reply: Parameters<typeof expectProblem>[0]): void {
  expectProblem(reply, 404, 'service/data/portal_not_found');
}

/** Opens a session for a customer and answers its id and the code in its URL. */
export async function openSession(
  api: Api,
  rootKey: string,
  portalId: string,
  externalId: string,
  scopes: InputOf<'portal.createSession'>['scopes'] = [...ALL_SCOPES],
): Promise<{ sessionId: string; code: string; url: string }> {
  const reply = await api.call('portal.createSession', { portal: portalId, externalId, scopes }, rootKey);
  if (reply.status !== 200) throw new Error(`createSession failed: ${JSON.stringify(reply.body)}`);
  const { id, url } = reply.body.data;
  const code = new URL(url).searchParams.get('code') ?? '';
  return { sessionId: id, code, url };
}

/** The portal page's exchange at `/trpc`: the answer and the `portal_session` cookie it set. */
export async function exchangeAtTrpc(api: Pick<Api, 'fetch'>, code: string) {
  const reply = await callInternal<{ accessToken: string; expiresAt: number }>(
    api,
    'portal.exchangeCode',
    { code },
    { headers: { 'x-keyplane-portal': '1' } },
  );
  const cookie = reply.setCookie.find((header) => header.startsWith('portal_session='));
  return { reply, cookie };
}

/** A customer signed in to the portal: their access token (the cookie's value). */
export async function customerSession(
  api: Api,
  rootKey: string,
  portalId: string,
  externalId: string,
  scopes?: InputOf<'portal.createSession'>['scopes'],
): Promise<{ accessToken: string; sessionId: string }> {
  const { code, sessionId } = await openSession(api, rootKey, portalId, externalId, scopes);
  const reply = await api.call('portal.exchangeCode', { code });
  if (reply.status !== 200) throw new Error(`exchangeCode failed: ${JSON.stringify(reply.body)}`);
  return { accessToken: reply.body.data.accessToken, sessionId };
}

/** Calls a procedure at `/trpc` as the portal page does: the cookie and the portal's header. */
export function callAsCustomer<TData = Record<string, unknown>>(
  api: Pick<Api, 'fetch'>,
  procedure: string,
  input: unknown,
  accessToken: string,
): Promise<InternalReply<TData>> {
  return callInternal<TData>(api, procedure, input, {
    headers: { Cookie: `portal_session=${accessToken}`, 'x-keyplane-portal': '1' },
  });
}

/** A `/trpc` refusal with its status and contract type. */
export function expectTrpcProblem(reply: InternalReply<unknown>, status: number, type?: string): void {
  expect(reply.status, JSON.stringify(reply.error)).toBe(status);
  if (type !== undefined) expect(reply.error?.data.type).toBe(type);
}

/** A customer's keys as portal.listKeys answers them (the fields the tests read). */
type CustomerKeyList = { data: { keyId: string; name: string | null }[] };

let customers = 0;
/** An externalId no other test of the file uses: a customer's identity is the workspace's, shared by its portals. */
export const newCustomerId = (name: string) => `${name}_${++customers}`;

/** What a signed-in customer does in the tests, with their access token. */
function customerActions(api: Pick<Api, 'fetch'>, accessToken: () => string) {
  return {
    /** Calls a procedure at `/trpc` as this customer's portal page. */
    call: <TData = Record<string, unknown>>(procedure: string, input: unknown) =>
      callAsCustomer<TData>(api, procedure, input, accessToken()),
    /** A key the customer creates (`portal.createKey`), failing the test on any error. */
    async createKey(name?: string): Promise<{ keyId: string; key: string }> {
      const input = name === undefined ? {} : { name };
      const reply = await callAsCustomer<{ keyId: string; key: string }>(api, 'portal.createKey', input, accessToken());
      if (reply.status !== 200) throw new Error(`portal.createKey failed: ${JSON.stringify(reply.error)}`);
      return reply.data;
    },
    /** What portal.listKeys answers the customer: their keys' ids and names, in its order. */
    async listed() {
      const reply = await callAsCustomer<CustomerKeyList>(api, 'portal.listKeys', {}, accessToken());
      expect(reply.status, JSON.stringify(reply.error)).toBe(200);
      return reply.data.data.map(({ keyId, name }) => ({ keyId, name }));
    },
  };
}

type CustomerFields = { portalId: string; externalId: string; accessToken: string; sessionId: string };
export type Customer = CustomerFields & ReturnType<typeof customerActions>;

/** A customer signed in to the portal (every scope unless given), and what they do. */
export async function signInCustomer(
  api: Api,
  rootKey: string,
  portalId: string,
  externalId: string,
  scopes?: InputOf<'portal.createSession'>['scopes'],
): Promise<Customer> {
  const { accessToken, sessionId } = await customerSession(api, rootKey, portalId, externalId, scopes);
  return { portalId, externalId, accessToken, sessionId, ...customerActions(api, () => accessToken) };
}

/** A new customer (an externalId of its own, from `name`) signed in to a new portal of the workspace. */
export async function newCustomer(
  api: Api,
  rootKey: string,
  name: string,
  portal: Partial<InputOf<'portal.createPortal'>> = {},
): Promise<Customer & { apiId: string }> {
  const { portalId, apiId } = await createTestPortal(api, rootKey, portal);
  return { apiId, ...(await signInCustomer(api, rootKey, portalId, newCustomerId(name))) };
}

/** Per file: a customer signed in to a portal of the file's workspace with every scope, made in its beforeAll. */
export function useCustomer(api: Api, workspace: TestWorkspace, name: string) {
  const customer = filledBeforeAll<CustomerFields>('useCustomer');
  beforeAll(async () => {
    customer.fill(await newCustomer(api, workspace.rootKey, name));
  });
  const fields = customer.fields('portalId', 'externalId', 'accessToken', 'sessionId');
  return Object.assign(
    fields,
    customerActions(api, () => customer.read().accessToken),
  );
}

/**
 * The audit log's events of one portal session, oldest first: each event, whether it has no root
 * key (the customer's own), its actor's externalId, and its resources.
 */
export async function sessionAuditEvents(api: Api, workspaceId: string, sessionId: string) {
  const rows = await api
    .em()
    .getConnection()
    .execute<
      {
        event: string;
        root_key_id: string | null;
        actor_external_id: string | null;
        resources: Record<string, string>;
      }[]
    >(
      `select event, root_key_id, actor_external_id, resources from audit_events
      where workspace_id = ? and resources->>'sessionId' = ? order by id`,
      [workspaceId, sessionId],
    );
  return rows.map((row) => ({
    event: [row.event, row.root_key_id === null, row.actor_external_id] as const,
    resources: row.resources,
  }));
}

/** The answer a key that is not the customer's gets: 404, never 403 (docs/portal.md#isolation). */
function expectCustomerKeyNotFound(reply: InternalReply<unknown>): void {
  expectTrpcProblem(reply, 404, 'service/data/key_not_found');
}

type EndedSession = { portalId: string; externalId: string; sessionId: string };
/** The ways a live session ends at once (docs/portal.md, Sessions): by the provider, by time, or with its portal or identity. */
const SESSION_ENDS: [string, (api: Api, rootKey: string, ended: EndedSession) => Promise<unknown>][] = [
  [
    'revoked',
    (api, rootKey, { portalId, externalId }) =>
      api.call('portal.revokeSession', { portal: portalId, externalId }, rootKey),
  ],
  [
    'expired',
    (api, _, { sessionId }) =>
      api
        .em()
        .getConnection()
        .execute(`update portal_sessions set access_expires_at = now() - interval '1 second' where id = ?`, [
          sessionId,
        ]),
  ],
  [
    'ended by its portal disabled',
    (api, rootKey, { portalId }) => api.call('portal.updatePortal', { portalId, enabled: false }, rootKey),
  ],
  [
    'ended by its portal deleted',
    (api, rootKey, { portalId }) => api.call('portal.deletePortal', { portalId }, rootKey),
  ],
  [
    'ended by the customer’s identity deleted',
    (api, rootKey, { externalId }) => api.call('identities.deleteIdentity', { identity: externalId }, rootKey),
  ],
];

/** Every scope but `missing` and the scopes that need it (keys:reroll, keys:update and keys:delete need keys:read). */
function allScopesBut(missing: (typeof ALL_SCOPES)[number]) {
  const needsRead = ['keys:reroll', 'keys:update', 'keys:delete'];
  return ALL_SCOPES.filter((scope) => scope !== missing && !(missing === 'keys:read' && needsRead.includes(scope)));
}

/**
 * The cases every customer procedure of a file shares, each for the describe of its status: the
 * procedure's name and its input for one key (`keyId`, ignored by those that take none).
 */
export function customerCases(
  api: Api,
  workspace: TestWorkspace,
  procedure: string,
  input: (keyId: string) => unknown,
) {
  return {
    /**
     * 401: a well-formed call without a session, and with one that was live and has ended (each
     * way of SESSION_ENDS), refused at once and changing nothing: the customer's key, made while
     * the session was live, keeps its name. authentication.test.ts also checks no session and
     * malformed tokens for every procedure, with an empty input.
     */
    refusesWithoutALiveSession() {
      it('without a session', async () => {
        const asPage = { headers: { 'x-keyplane-portal': '1' } };
        const reply = await callInternal(api, procedure, input('key_missing'), asPage);
        expectTrpcProblem(reply, 401, 'service/authentication/unauthorized');
        expect(reply.error?.message).toMatch(/No portal session/);
      });

      it.each(SESSION_ENDS)('with a session %s, changing nothing', async (_, end) => {
        const customer = await newCustomer(api, workspace.rootKey, 'gina');
        const { keyId } = await customer.createKey('kept');
        await end(api, workspace.rootKey, customer);
        const reply = await customer.call(procedure, input(keyId));
        expectTrpcProblem(reply, 401, 'service/authentication/unauthorized');
        expect(reply.error?.message).toMatch(/portal session has ended/);
        const key = await api.call('keys.getKey', { keyId }, workspace.rootKey);
        expect([key.status, key.body.data?.name]).toEqual([200, 'kept']);
      });
    },

    /**
     * 403: a session of the customer whose scopes lack `missing` (keys:read alone, and every scope
     * but it) is refused, naming the scope, and changes nothing of the customer's keys.
     */
    refusesWithoutTheScope(missing: (typeof ALL_SCOPES)[number]) {
      const scopeSets: InputOf<'portal.createSession'>['scopes'][] =
        missing === 'keys:read' ? [allScopesBut(missing)] : [['keys:read'], allScopesBut(missing)];
      it.each(scopeSets.map((scopes) => ({ scopes })))(
        `with the scopes $scopes, lacking ${missing}, changing nothing`,
        async ({ scopes }) => {
          const writer = await newCustomer(api, workspace.rootKey, 'dave');
          const { keyId } = await writer.createKey('kept');
          const lacking = await signInCustomer(api, workspace.rootKey, writer.portalId, writer.externalId, scopes);
          const reply = await lacking.call(procedure, input(keyId));
          expectTrpcProblem(reply, 403, 'service/authorization/forbidden');
          expect(reply.error?.message).toContain(`lacks the scope '${missing}'`);
          expect(await writer.listed()).toEqual([{ keyId, name: 'kept' }]);
        },
      );
    },

    /**
     * 404 for keys of the portal's API that are not the customer's: an id no key has, a key of the
     * API of no customer (the provider's), one of a customer who has no session, and a key the
     * customer deleted.
     */
    answersKeyNotFound() {
      it('for an unknown key id, the provider’s own key of the portal’s API, a key of a customer without a session, and a key the customer deleted', async () => {
        const customer = await newCustomer(api, workspace.rootKey, 'carl');
        const { apiId } = customer;
        const providers = await api.call('keys.createKey', { apiId, name: 'provider key' }, workspace.rootKey);
        // A key of the API for a customer who never signed in.
        const carols = await api.call(
          'keys.createKey',
          { apiId, externalId: newCustomerId('carol') },
          workspace.rootKey,
        );
        const deleted = await customer.createKey();
        expect((await customer.call('portal.deleteKey', { keyId: deleted.keyId })).status).toBe(200);
        for (const keyId of ['key_missing', providers.body.data.keyId, carols.body.data.keyId, deleted.keyId]) {
          expectCustomerKeyNotFound(await customer.call(procedure, input(keyId)));
        }
        const provider = await api.call('keys.getKey', { keyId: providers.body.data.keyId }, workspace.rootKey);
        expect(provider.body.data?.name).toBe('provider key');
      });
    },

    /**
     * Cross-customer isolation of a key procedure: bob never reaches another customer's key, his
     * own on another portal or his namesake's in another workspace, at /trpc or /v2: 404, changing
     * nothing.
     */
    keepsCustomersApart() {
      it('another customer’s key, the customer’s key on another portal, and one in another workspace answer 404 and change nothing', async () => {
        const { bob, keys, expectListedApart } = await customersApart(api, workspace);
        for (const { keyId } of Object.values(keys)) {
          expectCustomerKeyNotFound(await bob.call(procedure, input(keyId)));
        }
        // At /v2 with the access token as a Bearer token too.
        const v2 = await api.post(procedure, input(keys.alice.keyId), bob.accessToken);
        expect([v2.status, v2.body.error?.type]).toEqual([404, expect.stringMatching(/key_not_found$/)]);
        await expectListedApart();
      });
    },
  };
}

/**
 * Keys of customers kept apart: alice and bob on one portal, bob also on another portal of the
 * workspace and on a portal of another workspace, each but bob on the first portal with a key.
 */
export async function customersApart(api: Api, workspace: TestWorkspace) {
  const alice = await newCustomer(api, workspace.rootKey, 'alice');
  const bob = await signInCustomer(api, workspace.rootKey, alice.portalId, newCustomerId('bob'));
  const elsewhere = await createTestPortal(api, workspace.rootKey);
  const bobElsewhere = await signInCustomer(api, workspace.rootKey, elsewhere.portalId, bob.externalId);
  const other = await api.workspace();
  const { portalId: othersPortal } = await createTestPortal(api, other.rootKey);
  const bobOfOther = await signInCustomer(api, other.rootKey, othersPortal, bob.externalId);
  const keys = {
    alice: await alice.createKey('alice key'),
    bobElsewhere: await bobElsewhere.createKey('bob elsewhere'),
    bobOfOther: await bobOfOther.createKey('bob of another workspace'),
  };
  /** Each of them lists only the key made for them; bob on the first portal `bobs`. */
  async function expectListedApart(bobs: { keyId: string; name: string | null }[] = []) {
    expect({
      alice: await alice.listed(),
      bobElsewhere: await bobElsewhere.listed(),
      bobOfOther: await bobOfOther.listed(),
      bob: await bob.listed(),
    }).toEqual({
      alice: [{ keyId: keys.alice.keyId, name: 'alice key' }],
      bobElsewhere: [{ keyId: keys.bobElsewhere.keyId, name: 'bob elsewhere' }],
      bobOfOther: [{ keyId: keys.bobOfOther.keyId, name: 'bob of another workspace' }],
      bob: bobs,
    });
  }
  return { bob, keys, expectListedApart };
}
