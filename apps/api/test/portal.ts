import { expect } from 'vitest';
import { expectProblem } from './assertions.ts';
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
