import { newSecretToken } from '@keyplane/core';
import { createInvitation, createKeyMigration } from '@keyplane/db';
import { appRouter } from '@keyplane/procedures';
import { beforeAll, describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { type Caller, callInternal } from '../internal.ts';
import { type SignedInPerson, signedInPerson } from '../people.ts';
import { HOOK_URL, routerResources } from '../routerResources.ts';

// What each role may do, proved over the whole router (docs/decisions/0018): the procedures are
// generated from `appRouter._def.procedures`, so one added to the router is checked here as soon as
// it exists. They are classified by a rule, not listed:
// - a procedure of type `mutation` changes something: a viewer gets 403 from every one, except the
//   procedures of the caller's own session and account (OWN_SESSION and every `account.*`), which
//   any signed-in person uses whatever their role;
// - a procedure of type `query` reads: a viewer gets an answer (200) from every one;
// - a member gets 403 from every mutation of `rootKeys.*` and `members.*` (the workspace's own
//   administration) and 200 from every mutation of `apis.*` and `keys.*`.
// Each call needs a valid input, or the body's check (400) would answer before the permissions
// are looked at (docs/contract.md#order-of-checks): SCENARIOS holds one per procedure, and a
// procedure without one fails the test that asks for them all.

// With a vault: a recoverable key shows that a viewer is refused its secret for want of the permission.
const { api, workspace } = useApiWithWorkspace({ vault: true });

/** The caller's own session and account, and why a role does not bound them. */
const OWN_SESSION: Record<string, string> = {
  'dashboard.signIn': 'signs in with a root key (the break-glass path), acting as that key, not as the person',
  'dashboard.signOut': 'ends the caller’s own session, which anyone signed in may do',
};
const OWN_ACCOUNT_PREFIX = 'account.';
const ownSessionReason = (path: string): string | undefined =>
  OWN_SESSION[path] ??
  (path.startsWith(OWN_ACCOUNT_PREFIX)
    ? 'the person’s own account: profile, password, passkeys, sessions, sign-in (docs/team-accounts.md)'
    : undefined);

type ProcedureTable = Record<
  string,
  { _def: { type: 'query' | 'mutation' | 'subscription'; meta?: { auth?: 'portalSession' | 'none' } } }
>;
// A portal customer's procedures (and their way in, portal.exchangeCode) take a portal session, not
// a person or a root key: no role bounds them (docs/portal.md; apps/api/test/portal/ tests them).
const procedures = Object.entries(appRouter._def.procedures as unknown as ProcedureTable).filter(
  ([, procedure]) => procedure._def.meta?.auth === undefined,
);
/**
 * Mutations that answer 404 rather than 403 to a caller lacking their permission, by the contract:
 * portal.createSession, as the reference's, so that no caller learns a portal exists (docs/portal.md).
 */
const MASKED_AS_NOT_FOUND: Record<string, string> = { 'portal.createSession': 'service/data/portal_not_found' };
const pathsOf = (type: 'query' | 'mutation') =>
  procedures.filter(([, procedure]) => procedure._def.type === type).map(([path]) => path);

const MUTATIONS = pathsOf('mutation').filter((path) => ownSessionReason(path) === undefined);
const OWN_MUTATIONS = pathsOf('mutation').filter((path) => ownSessionReason(path) !== undefined);
const QUERIES = pathsOf('query');
const ADMINISTRATION = ['rootKeys.', 'members.'];
const MEMBER_WORK = ['apis.', 'keys.', 'portal.'];
const under = (prefixes: readonly string[]) => (path: string) => prefixes.some((prefix) => path.startsWith(prefix));

const owner = (): Caller => ({ rootKey: workspace.rootKey });
const { next, call, newApi, newKey, newRole, newNamespace, newEndpoint, newPortal } = routerResources(api, owner);
const newPerson = async () => (await signedInPerson(api, workspace.workspaceId, 'viewer')).userId;

/** A valid input for one procedure, its resources made with the owner's root key first. */
type Scenario = () => Promise<unknown>;

/** What the reads name: made once, before the file's tests. */
const made = { apiId: '', keyId: '', key: '', identity: '', permission: '', role: '', namespace: '', endpointId: '' };

const SCENARIOS: Record<string, Scenario> = {
  // Mutations.
  'portal.createPortal': async () => ({ apiId: await newApi(), displayName: 'Acme' }),
  'portal.updatePortal': async () => ({ portalId: await newPortal(), displayName: 'Renamed' }),
  'portal.deletePortal': async () => ({ portalId: await newPortal() }),
  'portal.createSession': async () => ({
    portal: await newPortal(),
    externalId: next('customer'),
    scopes: ['keys:read'],
  }),
  'portal.revokeSession': async () => ({ portal: await newPortal(), externalId: next('customer') }),
  'portal.getPortal': async () => ({ portalId: await newPortal() }),
  'portal.listPortals': async () => ({}),
  'portal.listSessions': async () => ({ portal: await newPortal() }),
  'apis.createApi': async () => ({ name: next('api') }),
  'apis.updateApi': async () => ({ apiId: await newApi(), name: next('renamed') }),
  'apis.deleteApi': async () => ({ apiId: await newApi() }),
  'identities.createIdentity': async () => ({ externalId: next('user') }),
  'identities.updateIdentity': async () => {
    const externalId = next('user');
    await call('identities.createIdentity', { externalId });
    return { identity: externalId, meta: { plan: 'pro' } };
  },
  'identities.deleteIdentity': async () => {
    const externalId = next('user');
    await call('identities.createIdentity', { externalId });
    return { identity: externalId };
  },
  'keys.createKey': async () => ({ apiId: await newApi() }),
  'keys.verifyKey': async () => ({ key: (await newKey()).key }),
  'keys.updateKey': async () => ({ keyId: (await newKey()).keyId, enabled: false }),
  'keys.updateCredits': async () => ({
    keyId: (await newKey({ credits: { remaining: 5 } })).keyId,
    operation: 'set',
    value: 1,
  }),
  'keys.rerollKey': async () => ({ keyId: (await newKey()).keyId, expiration: 0 }),
  'keys.deleteKey': async () => ({ keyId: (await newKey()).keyId }),
  'keys.addPermissions': async () => ({ keyId: (await newKey()).keyId, permissions: [next('perm')] }),
  'keys.removePermissions': async () => {
    const slug = next('perm');
    return { keyId: (await newKey({ permissions: [slug] })).keyId, permissions: [slug] };
  },
  'keys.setPermissions': async () => ({ keyId: (await newKey()).keyId, permissions: [next('perm')] }),
  'keys.addRoles': async () => ({ keyId: (await newKey()).keyId, roles: [(await newRole()).name] }),
  'keys.removeRoles': async () => {
    const { name } = await newRole();
    return { keyId: (await newKey({ roles: [name] })).keyId, roles: [name] };
  },
  'keys.setRoles': async () => ({ keyId: (await newKey()).keyId, roles: [(await newRole()).name] }),
  'keys.migrateKeys': async () => ({
    migrationId: await createKeyMigration(api.em(), workspace.workspaceId),
    apiId: await newApi(),
    keys: [{ hash: next('imported_hash') }],
  }),
  'permissions.createPermission': async () => {
    const slug = next('perm');
    return { name: slug, slug };
  },
  'permissions.createRole': async () => ({ name: next('role') }),
  'permissions.setRolePermissions': async () => ({ roleId: (await newRole()).roleId, permissions: [next('perm')] }),
  'permissions.deletePermission': async () => {
    const slug = next('perm');
    await call('permissions.createPermission', { name: slug, slug });
    return { permission: slug };
  },
  'permissions.deleteRole': async () => ({ role: (await newRole()).name }),
  'ratelimit.limit': async () => ({ namespace: await newNamespace(), identifier: 'user', limit: 10, duration: 60_000 }),
  'ratelimit.multiLimit': async () => [
    { namespace: await newNamespace(), identifier: 'user', limit: 10, duration: 60_000 },
  ],
  'ratelimit.createNamespace': async () => ({ name: next('namespace') }),
  'ratelimit.deleteNamespace': async () => ({ namespace: await newNamespace() }),
  'ratelimit.setOverride': async () => ({
    namespace: await newNamespace(),
    identifier: 'user',
    limit: 1,
    duration: 60_000,
  }),
  'ratelimit.deleteOverride': async () => {
    const namespace = await newNamespace();
    await call('ratelimit.setOverride', { namespace, identifier: 'user', limit: 1, duration: 60_000 });
    return { namespace, identifier: 'user' };
  },
  'rootKeys.createRootKey': async () => ({ permissions: ['api.*.read_api'] }),
  'rootKeys.updateRootKey': async () => {
    const { rootKeyId } = await workspace.rootKeyWith(['api.*.read_api']);
    return { rootKeyId, expires: Date.now() + 3_600_000 };
  },
  'rootKeys.revokeRootKey': async () => ({ rootKeyId: (await workspace.rootKeyWith(['api.*.read_api'])).rootKeyId }),
  'webhooks.createEndpoint': async () => ({ url: HOOK_URL, eventTypes: ['*'] }),
  'webhooks.updateEndpoint': async () => ({ endpointId: await newEndpoint(), enabled: false }),
  'webhooks.deleteEndpoint': async () => ({ endpointId: await newEndpoint() }),
  'webhooks.rotateSecret': async () => ({ endpointId: await newEndpoint() }),
  'webhooks.sendTest': async () => ({ endpointId: await newEndpoint() }),
  'webhooks.redeliver': async () => {
    const endpointId = await newEndpoint();
    await call('webhooks.sendTest', { endpointId });
    const [delivery] = (await call('webhooks.listDeliveries', { endpointId })).data;
    if (!delivery) throw new Error('sendTest queued no delivery');
    return { deliveryId: delivery.deliveryId };
  },
  'workspace.deleteWorkspace': async () => ({}),
  // The procedures of team accounts as docs/team-accounts.md names them, for when they join the router.
  'members.inviteMember': async () => ({ email: `${next('invited')}@example.test`, role: 'viewer' }),
  'members.updateMember': async () => ({ userId: await newPerson(), role: 'member' }),
  'members.removeMember': async () => ({ userId: await newPerson() }),
  'members.revokeInvitation': async () => ({
    invitationId: await createInvitation(api.em(), {
      workspaceId: workspace.workspaceId,
      email: `${next('invited')}@example.test`,
      role: 'viewer',
      tokenHash: next('token_hash'),
      invitedByUserId: null,
      expiresAt: Date.now() + 3_600_000,
    }),
  }),
  'members.createPasswordReset': async () => ({ userId: await newPerson() }),
  'workspace.setRootKeySignIn': async () => ({ enabled: false }),

  // Queries.
  'analytics.getVerifications': async () => ({ query: 'select 1' }),
  'analytics.getRatelimits': async () => ({ query: 'select 1' }),
  'apis.getApi': async () => ({ apiId: made.apiId }),
  'apis.listApis': async () => ({}),
  'apis.listKeys': async () => ({ apiId: made.apiId }),
  'apis.listKeysPage': async () => ({ apiId: made.apiId }),
  'audit.listEventNames': async () => ({}),
  'audit.listEvents': async () => ({}),
  'dashboard.session': async () => undefined,
  'identities.getIdentity': async () => ({ identity: made.identity }),
  'identities.listIdentities': async () => ({}),
  'keys.getKey': async () => ({ keyId: made.keyId }),
  'keys.getKeyAccess': async () => ({ keyId: made.keyId }),
  'keys.listVerifications': async () => ({ keyId: made.keyId }),
  'keys.whoami': async () => ({ key: made.key }),
  'permissions.getPermission': async () => ({ permission: made.permission }),
  'permissions.listPermissions': async () => ({}),
  'permissions.getRole': async () => ({ role: made.role }),
  'permissions.listRoles': async () => ({}),
  'ratelimit.getOverride': async () => ({ namespace: made.namespace, identifier: 'user' }),
  'ratelimit.listOverrides': async () => ({ namespace: made.namespace }),
  'ratelimit.listNamespaces': async () => ({}),
  'rootKeys.listRootKeys': async () => ({}),
  'rootKeys.permissionCatalog': async () => undefined,
  'webhooks.listEndpoints': async () => ({}),
  'webhooks.listDeliveries': async () => ({ endpointId: made.endpointId }),
  'workspace.getWorkspace': async () => undefined,
  'members.listMembers': async () => ({}),
  'members.listInvitations': async () => ({}),
  'account.describeInvitation': async () => {
    const { token, tokenHash } = newSecretToken();
    await createInvitation(api.em(), {
      workspaceId: workspace.workspaceId,
      email: `${next('invited')}@example.test`,
      role: 'viewer',
      tokenHash,
      invitedByUserId: null,
      expiresAt: Date.now() + 3_600_000,
    });
    return { token };
  },
};

/** The queries of a person's own account answer what their input asks; those without a scenario are called bare. */
const scenarioOf = (path: string): Scenario | undefined =>
  SCENARIOS[path] ?? (path.startsWith(OWN_ACCOUNT_PREFIX) ? async () => undefined : undefined);

const people = { viewer: undefined as SignedInPerson | undefined, member: undefined as SignedInPerson | undefined };
const as = (who: keyof typeof people): Caller => {
  const person = people[who];
  if (!person) throw new Error(`the ${who} is not signed in yet`);
  return { session: person.session };
};

beforeAll(async () => {
  people.viewer = await signedInPerson(api, workspace.workspaceId, 'viewer');
  people.member = await signedInPerson(api, workspace.workspaceId, 'member');
  made.apiId = await newApi();
  await call('apis.updateApi', { apiId: made.apiId, encryption: { enabled: true } });
  const key = await call('keys.createKey', { apiId: made.apiId, recoverable: true });
  Object.assign(made, { keyId: key.keyId, key: key.key });
  made.identity = next('user');
  await call('identities.createIdentity', { externalId: made.identity });
  made.permission = next('perm');
  await call('permissions.createPermission', { name: made.permission, slug: made.permission });
  made.role = (await newRole()).name;
  made.namespace = await newNamespace();
  await call('ratelimit.setOverride', { namespace: made.namespace, identifier: 'user', limit: 1, duration: 60_000 });
  made.endpointId = await newEndpoint();
});

async function callWith(path: string, who: keyof typeof people) {
  const scenario = scenarioOf(path);
  if (!scenario) throw new Error(`no scenario for ${path}: add a valid input for it to SCENARIOS`);
  return callInternal(api, path, await scenario(), as(who));
}

describe('the generated cases', () => {
  it('have a valid input for every procedure a role bounds (add one to SCENARIOS for a new procedure)', () => {
    expect([...MUTATIONS, ...QUERIES].filter((path) => scenarioOf(path) === undefined)).toEqual([]);
  });

  it('leave out only the caller’s own session and account, each for its reason', () => {
    for (const path of OWN_MUTATIONS) expect(ownSessionReason(path)).toEqual(expect.any(String));
    // Every named exclusion is a procedure of the router: none is left behind by a rename.
    expect(OWN_MUTATIONS.filter((path) => !path.startsWith(OWN_ACCOUNT_PREFIX))).toEqual(Object.keys(OWN_SESSION));
  });

  it('cover the administration and the member’s work', () => {
    expect(MUTATIONS.filter(under(['rootKeys.']))).toEqual([
      'rootKeys.createRootKey',
      'rootKeys.revokeRootKey',
      'rootKeys.updateRootKey',
    ]);
    expect(MUTATIONS.filter(under(MEMBER_WORK)).length).toBeGreaterThan(15);
  });
});

describe('403: a viewer changes nothing', () => {
  it.each(MUTATIONS)('%s', async (path) => {
    const reply = await callWith(path, 'viewer');
    const masked = MASKED_AS_NOT_FOUND[path];
    expect({ status: reply.status, type: reply.error?.data.type }).toEqual(
      masked ? { status: 404, type: masked } : { status: 403, type: 'service/authorization/forbidden' },
    );
  });
});

describe('200: a viewer reads everything', () => {
  it.each(QUERIES)('%s', async (path) => {
    const reply = await callWith(path, 'viewer');
    expect({ status: reply.status, error: reply.error?.message }).toEqual({ status: 200, error: undefined });
  });

  it('never a decrypted key', async () => {
    const reply = await callInternal(api, 'keys.getKey', { keyId: made.keyId, decrypt: true }, as('viewer'));
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('decrypt_key');
  });
});

describe('403: a member does not administer the workspace', () => {
  it.each(MUTATIONS.filter(under(ADMINISTRATION)))('%s', async (path) => {
    const reply = await callWith(path, 'member');
    expect({ status: reply.status, type: reply.error?.data.type }).toEqual({
      status: 403,
      type: 'service/authorization/forbidden',
    });
  });

  it.each(['rootKeys.listRootKeys', 'audit.listEvents'])('nor reads it: %s', async (path) => {
    expect((await callWith(path, 'member')).status).toBe(403);
  });
});

describe('200: a member works on APIs and keys', () => {
  it.each(MUTATIONS.filter(under(MEMBER_WORK)))('%s', async (path) => {
    const reply = await callWith(path, 'member');
    expect({ status: reply.status, error: reply.error?.message }).toEqual({ status: 200, error: undefined });
  });
});

describe('the caller’s workspace stays whole', () => {
  it('after every refused change: the owner still reads it', async () => {
    const reply = await callInternal(api, 'workspace.getWorkspace', undefined, owner());
    expect(reply.status).toBe(200);
  });
});
