import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../httpServer.ts';
import { callInternal } from '../internal.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';
import { HOOK_URL } from '../webhooks.ts';

// A tenant holding a root key scoped to its own API, identity, namespace and endpoint probes for
// what else the workspace holds: by naming what exists out of its reach and what never existed,
// through every procedure that looks something up by what the caller names, and comparing the
// answers. They must be the same (docs/contract.md#authorization-order), on a real server process.

let server: ServerProcess;
let admin: string;
let tenant: string;
/** What exists out of the tenant's reach, by kind. */
const theirs = { apiId: '', keyId: '', externalId: 'their_customer', namespace: 'their.namespace', deliveryId: '' };
/** What the tenant holds. */
const mine = { apiId: '', keyId: '', identityId: '', namespaceId: '' };

interface Answer {
  status: number;
  error: unknown;
  data?: unknown;
}

/** POST /v2/<procedure> (its answer checked against the OpenAPI document): status, error and data. */
async function v2(procedure: string, input: unknown, rootKey: string): Promise<Answer> {
  const { status, body } = await httpClient(server.url).post(procedure, input, rootKey);
  return { status, error: body.error, data: body.data };
}

/** A procedure at /trpc (the internal ones), as the dashboard and the typed client call it. */
async function trpc(procedure: string, input: unknown, rootKey: string): Promise<Answer> {
  const reply = await callInternal(httpClient(server.url), procedure, input, { rootKey });
  // The request id differs from one answer to the next; everything else must not.
  const { requestId: _requestId, ...data } = (reply.error?.data ?? {}) as Record<string, unknown>;
  return { status: reply.status, error: reply.error && { ...reply.error, data }, data: reply.data };
}

async function succeeded<T>(answer: Promise<Answer>): Promise<T> {
  const { status, data, error } = await answer;
  if (status !== 200) throw new Error(`set-up call failed: ${status} ${JSON.stringify(error)}`);
  return data as T;
}

beforeAll(async () => {
  server = await startServerProcess({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
  admin = bootstrapRootKey(server);
  const apiOf = async (name: string) =>
    (await succeeded<{ apiId: string }>(v2('apis.createApi', { name }, admin))).apiId;
  const keyOf = async (apiId: string, externalId: string) =>
    (await succeeded<{ keyId: string }>(v2('keys.createKey', { apiId, externalId }, admin))).keyId;
  theirs.apiId = await apiOf('theirs');
  theirs.keyId = await keyOf(theirs.apiId, theirs.externalId);
  mine.apiId = await apiOf('mine');
  mine.keyId = await keyOf(mine.apiId, 'my_customer');
  mine.identityId = (
    await succeeded<{ identity: { id: string } }>(v2('keys.getKey', { keyId: mine.keyId }, admin))
  ).identity.id;
  await succeeded(v2('permissions.createPermission', { name: 'exists', slug: 'their.slug' }, admin));
  await succeeded(v2('permissions.createRole', { name: 'their_role' }, admin));
  const limit = (namespace: string) => ({ namespace, identifier: 'probe', limit: 1, duration: 1000, cost: 0 });
  await succeeded(v2('ratelimit.limit', limit(theirs.namespace), admin));
  await succeeded(v2('ratelimit.limit', limit('my.namespace'), admin));
  await succeeded(
    v2('ratelimit.setOverride', { namespace: theirs.namespace, identifier: 'vip', limit: 5, duration: 1000 }, admin),
  );
  await succeeded(v2('ratelimit.limit', limit('their.deleted'), admin));
  await succeeded(trpc('ratelimit.deleteNamespace', { namespace: 'their.deleted' }, admin));
  const namespaces = await succeeded<{ data: { id: string; name: string }[] }>(
    trpc('ratelimit.listNamespaces', {}, admin),
  );
  mine.namespaceId = namespaces.data.find((namespace) => namespace.name === 'my.namespace')?.id ?? '';
  const { endpointId } = await succeeded<{ endpointId: string }>(
    v2('webhooks.createEndpoint', { url: HOOK_URL, eventTypes: ['*'] }, admin),
  );
  await succeeded(v2('webhooks.sendTest', { endpointId }, admin));
  const deliveries = await succeeded<{ deliveryId: string }[]>(v2('webhooks.listDeliveries', { endpointId }, admin));
  theirs.deliveryId = deliveries[0]?.deliveryId ?? '';

  const ownApi = ['read_api', 'update_api', 'delete_api', 'create_key', 'read_key', 'update_key', 'delete_key'];
  const created = await succeeded<{ key: string }>(
    trpc(
      'rootKeys.createRootKey',
      {
        permissions: [
          ...ownApi.map((action) => `api.${mine.apiId}.${action}`),
          `api.${mine.apiId}.read_analytics`,
          `identity.${mine.identityId}.read_identity`,
          ...['limit', 'read_namespace', 'read_override', 'set_override', 'delete_override', 'delete_namespace'].map(
            (action) => `ratelimit.${mine.namespaceId}.${action}`,
          ),
          'webhook.whep_mine.update_endpoint',
          'webhook.*.create_endpoint',
          'rbac.*.create_role',
          'rbac.*.add_permission_to_role',
          'rbac.*.add_permission_to_key',
          'rbac.*.add_role_to_key',
          'workspace.*.manage_root_keys',
        ],
      },
      admin,
    ),
  );
  tenant = created.key;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/**
 * The tenant's answers for something that exists out of its reach and for something that never
 * existed: the same, but for the name it sent itself (an answer may quote it).
 */
async function expectAlike(call: (name: string) => Promise<Answer>, existing: string, neverWas: string) {
  const seen = async (name: string) => {
    const { status, error } = await call(name);
    return JSON.parse(JSON.stringify({ status, error }).replaceAll(name, '<named>')) as unknown;
  };
  const [out, never] = [await seen(existing), await seen(neverWas)];
  expect((out as Answer).status).toBeGreaterThanOrEqual(400);
  expect(out).toEqual(never);
}

/** A name of each kind in `theirs` that never existed. */
const NEVER_WAS = {
  apiId: 'api_never_was',
  keyId: 'key_never_was',
  externalId: 'nobody_at_all',
  namespace: 'never.was',
  deliveryId: 'whdl_never_was',
} satisfies Record<keyof typeof theirs, string>;

/** One test: `call` answers alike for their thing of this `kind`, out of reach, and one that never existed. */
function itAnswersAlike(title: string, kind: keyof typeof theirs, call: (name: string) => Promise<Answer>) {
  it(title, () => expectAlike(call, theirs[kind], NEVER_WAS[kind]));
}

describe('a key of an API out of reach answers as a key that never existed', () => {
  it.each([
    ['keys.getKey', (keyId: string) => ({ keyId })],
    ['keys.updateKey', (keyId: string) => ({ keyId, name: 'probe' })],
    ['keys.updateCredits', (keyId: string) => ({ keyId, operation: 'set', value: 1 })],
    ['keys.deleteKey', (keyId: string) => ({ keyId })],
    ['keys.rerollKey', (keyId: string) => ({ keyId, expiration: 0 })],
    ['keys.addPermissions', (keyId: string) => ({ keyId, permissions: ['their.slug'] })],
    ['keys.removePermissions', (keyId: string) => ({ keyId, permissions: ['their.slug'] })],
    ['keys.setPermissions', (keyId: string) => ({ keyId, permissions: [] })],
    ['keys.addRoles', (keyId: string) => ({ keyId, roles: ['their_role'] })],
    ['keys.removeRoles', (keyId: string) => ({ keyId, roles: ['their_role'] })],
    ['keys.setRoles', (keyId: string) => ({ keyId, roles: [] })],
  ])('%s', async (procedure, input) => {
    await expectAlike((keyId) => v2(procedure, input(keyId), tenant), theirs.keyId, NEVER_WAS.keyId);
  });

  it.each([
    ['keys.getKeyAccess', (keyId: string) => ({ keyId })],
    ['keys.listVerifications', (keyId: string) => ({ keyId })],
  ])('%s (internal)', async (procedure, input) => {
    await expectAlike((keyId) => trpc(procedure, input(keyId), tenant), theirs.keyId, NEVER_WAS.keyId);
  });
});

describe('an API out of reach answers as an API that never existed', () => {
  it.each([
    ['apis.getApi', (apiId: string) => ({ apiId })],
    ['apis.updateApi', (apiId: string) => ({ apiId, name: 'probe' })],
    ['apis.deleteApi', (apiId: string) => ({ apiId })],
    ['apis.listKeys', (apiId: string) => ({ apiId })],
    ['keys.createKey', (apiId: string) => ({ apiId })],
    ['webhooks.createEndpoint', (apiId: string) => ({ url: HOOK_URL, eventTypes: ['*'], apiIds: [apiId] })],
  ])('%s', async (procedure, input) => {
    await expectAlike((apiId) => v2(procedure, input(apiId), tenant), theirs.apiId, NEVER_WAS.apiId);
  });

  itAnswersAlike('apis.listKeysPage (internal)', 'apiId', (apiId) => trpc('apis.listKeysPage', { apiId }, tenant));
});

describe('an identity out of reach answers as one that never existed', () => {
  itAnswersAlike('identities.getIdentity, by externalId', 'externalId', (identity) =>
    v2('identities.getIdentity', { identity }, tenant),
  );

  it('identities.listIdentities, searched: only what the tenant may read is found', async () => {
    const found = async (search: string) => (await v2('identities.listIdentities', { search }, tenant)).data;
    expect(await found(theirs.externalId)).toEqual(await found('nobody_at_all'));
    expect(await found('my_customer')).toEqual([expect.objectContaining({ id: mine.identityId })]);
  });
});

describe('a namespace out of reach answers as one that never existed', () => {
  it.each([
    ['ratelimit.getOverride', (namespace: string) => ({ namespace, identifier: 'vip' })],
    ['ratelimit.setOverride', (namespace: string) => ({ namespace, identifier: 'vip', limit: 1, duration: 1000 })],
    ['ratelimit.deleteOverride', (namespace: string) => ({ namespace, identifier: 'vip' })],
    ['ratelimit.listOverrides', (namespace: string) => ({ namespace })],
    ['ratelimit.limit', (namespace: string) => ({ namespace, identifier: 'x', limit: 1, duration: 1000 })],
    ['ratelimit.multiLimit', (namespace: string) => [{ namespace, identifier: 'x', limit: 1, duration: 1000 }]],
  ])('%s', async (procedure, input) => {
    for (const existing of [theirs.namespace, 'their.deleted']) {
      await expectAlike((namespace) => v2(procedure, input(namespace), tenant), existing, NEVER_WAS.namespace);
    }
  });

  itAnswersAlike('ratelimit.deleteNamespace (internal)', 'namespace', (namespace) =>
    trpc('ratelimit.deleteNamespace', { namespace }, tenant),
  );
});

describe('a webhook delivery out of reach answers as one that never existed', () => {
  itAnswersAlike('webhooks.redeliver', 'deliveryId', (deliveryId) => v2('webhooks.redeliver', { deliveryId }, tenant));
});

describe('a permission slug the tenant may not read answers as one that never existed', () => {
  it.each([
    ['permissions.createRole', (slug: string) => ({ name: `probe-${slug}`, permissions: [slug] })],
    ['keys.addPermissions', (slug: string) => ({ keyId: mine.keyId, permissions: [slug] })],
  ])('%s', async (procedure, input) => {
    await expectAlike((slug) => v2(procedure, input(slug), tenant), 'their.slug', 'never.was');
  });
});

describe('the audit log shows the tenant only what it may read', () => {
  it('audit.listEvents: nothing of theirs, whatever it filters or searches by', async () => {
    const events = async (input: Record<string, unknown>) => {
      const { data } = await trpc('audit.listEvents', input, tenant);
      return data as { data: { resources: Record<string, string> }[]; total: number };
    };
    const all = await events({});
    const seen = JSON.stringify(all);
    for (const hidden of [theirs.apiId, theirs.keyId, theirs.externalId, theirs.deliveryId]) {
      expect(seen).not.toContain(hidden);
    }
    for (const [filter, value] of [
      ['resourceId', theirs.keyId],
      ['resourceId', theirs.apiId],
      ['search', theirs.externalId],
    ] as const) {
      expect(await events({ [filter]: value })).toEqual(await events({ [filter]: `${value}x` }));
    }
    // Its own API's events, which it may read, are there.
    expect(seen).toContain(mine.apiId);
  });

  it('audit.listEventNames: only the names of events it may see', async () => {
    const { data } = await trpc('audit.listEventNames', undefined, tenant);
    const { events } = data as { events: string[] };
    for (const hidden of [
      'webhooks.createEndpoint',
      'webhooks.sendTest',
      'ratelimit.setOverride',
      'ratelimit.deleteNamespace',
      'permissions.createPermission',
      'permissions.createRole',
    ]) {
      expect(events).not.toContain(hidden);
    }
    expect(events).toEqual(expect.arrayContaining(['apis.createApi', 'keys.createKey', 'rootKeys.createRootKey']));
  });
});
