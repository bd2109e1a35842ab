import type { Api } from './harness.ts';
import { type Caller, callInternal } from './internal.ts';
import type { InputOf, OutputOf, ProcedurePath } from './procedures.ts';

// What the tests that call every procedure of the router (people/roles.test.ts, settledChanges.test.ts)
// make their inputs of: resources made at `/trpc` by the workspace's owner, each under a new name.

export const HOOK_URL = 'https://hooks.example.com/keyplane';

/** Makers of a workspace's resources, called as `owner()` (read at each call: the workspace is made in a beforeAll). */
export function routerResources(api: Pick<Api, 'fetch'>, owner: () => Caller) {
  let unique = 0;
  /** A name no other call of this file has used. */
  const next = (name: string) => `${name}_${++unique}`;

  /** A procedure called at `/trpc` with the router's types, failing the test on anything but 200. */
  async function call<P extends ProcedurePath>(
    path: P,
    input: InputOf<P>,
    caller: Caller = owner(),
  ): Promise<OutputOf<P>> {
    const reply = await callInternal<OutputOf<P>>(api, path, input, caller);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.error)}`);
    return reply.data;
  }

  const newApi = async () => (await call('apis.createApi', { name: next('api') })).apiId;
  const newKey = async (extra: Partial<InputOf<'keys.createKey'>> = {}) =>
    call('keys.createKey', { apiId: await newApi(), ...extra });
  const newRole = async () => {
    const name = next('role');
    return { name, roleId: (await call('permissions.createRole', { name })).roleId };
  };
  const newNamespace = async () => {
    const name = next('namespace');
    await call('ratelimit.createNamespace', { name });
    return name;
  };
  const newEndpoint = async () =>
    (await call('webhooks.createEndpoint', { url: HOOK_URL, eventTypes: ['key.deleted'] })).endpointId;
  const newPortal = async () =>
    (await call('portal.createPortal', { apiId: await newApi(), displayName: 'Acme' })).portalId;

  return { next, call, newApi, newKey, newRole, newNamespace, newEndpoint, newPortal };
}
