import { listenForInvalidations } from '@keyplane/caches';
import { createKeyMigration, rows, sql } from '@keyplane/db';
import { appRouter } from '@keyplane/procedures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asBrowser, newInvitationToken, newPasswordResetToken, newSetupToken } from './accounts.ts';
import { useApiWithWorkspace } from './fixtures.ts';
import { type Caller, dashboardHeaders, signIn } from './internal.ts';
import { softwareAuthenticator } from './passkeys.ts';
import { signedInPerson, TEST_PERSON_PASSWORD } from './people.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';
import { HOOK_URL, routerResources } from './routerResources.ts';

// A call that changes what nodes cache answers only once every node has forgotten it: the
// procedures' middleware settles whatever the call's writes announced. Another node listens here
// and holds each acknowledgement back a moment; every mutation of the router is called while it
// does, and one that announced a change must not have answered before that node acknowledged.

const { api, workspace } = useApiWithWorkspace();

/** Another node: records what it hears, and acknowledges each ping only after holding it. */
const otherNode = {
  heard: 0,
  acknowledgedAt: undefined as number | undefined,
  /** While set, each acknowledgement waits for it. */
  gate: undefined as Promise<void> | undefined,
  close: async () => {},
};
const HOLD_MS = 100;

beforeAll(async () => {
  const listener = await listenForInvalidations(api.databaseUrl, {
    onChange: () => {
      otherNode.heard += 1;
    },
    onReset: () => {},
    beforeAcknowledging: async () => {
      await (otherNode.gate ?? new Promise((resolve) => setTimeout(resolve, HOLD_MS)));
      otherNode.acknowledgedAt = performance.now();
    },
  });
  otherNode.close = () => listener.close();
});
afterAll(() => otherNode.close());

const NEW_PASSWORD = 'a passphrase nobody else uses';
/** The workspace's bootstrap root key: who makes the scenarios' resources, and calls those that name no caller. */
const owner = (): Caller => ({ rootKey: workspace.rootKey });
const { next, call, newApi, newKey, newRole, newNamespace, newEndpoint, newPortal } = routerResources(api, owner);

/** How to call one mutation successfully; setting up costs nothing the check looks at. */
interface Scenario<P extends ProcedurePath> {
  input: InputOf<P>;
  caller?: Caller;
}
type Scenarios = { [P in ProcedurePath]?: () => Promise<Scenario<P>> };

const scenarios: Scenarios = {
  'apis.createApi': async () => ({ input: { name: next('api') } }),
  'apis.updateApi': async () => ({ input: { apiId: await newApi(), name: next('renamed') } }),
  'apis.deleteApi': async () => ({ input: { apiId: await newApi() } }),
  'identities.createIdentity': async () => ({ input: { externalId: next('user') } }),
  'identities.updateIdentity': async () => {
    const externalId = next('user');
    await call('identities.createIdentity', { externalId });
    return { input: { identity: externalId, meta: { plan: 'pro' } } };
  },
  'identities.deleteIdentity': async () => {
    const externalId = next('user');
    await call('identities.createIdentity', { externalId });
    return { input: { identity: externalId } };
  },
  'keys.createKey': async () => ({ input: { apiId: await newApi() } }),
  'keys.verifyKey': async () => ({ input: { key: (await newKey()).key } }),
  'keys.updateKey': async () => ({ input: { keyId: (await newKey()).keyId, enabled: false } }),
  'keys.updateCredits': async () => ({
    input: { keyId: (await newKey({ credits: { remaining: 5 } })).keyId, operation: 'set', value: 1 },
  }),
  'keys.rerollKey': async () => ({ input: { keyId: (await newKey()).keyId, expiration: 0 } }),
  'keys.deleteKey': async () => ({ input: { keyId: (await newKey()).keyId } }),
  'keys.addPermissions': async () => ({ input: { keyId: (await newKey()).keyId, permissions: [next('perm')] } }),
  'keys.removePermissions': async () => {
    const slug = next('perm');
    return { input: { keyId: (await newKey({ permissions: [slug] })).keyId, permissions: [slug] } };
  },
  'keys.setPermissions': async () => ({ input: { keyId: (await newKey()).keyId, permissions: [next('perm')] } }),
  'keys.addRoles': async () => ({ input: { keyId: (await newKey()).keyId, roles: [(await newRole()).name] } }),
  'keys.removeRoles': async () => {
    const { name } = await newRole();
    return { input: { keyId: (await newKey({ roles: [name] })).keyId, roles: [name] } };
  },
  'keys.setRoles': async () => ({ input: { keyId: (await newKey()).keyId, roles: [(await newRole()).name] } }),
  'keys.migrateKeys': async () => ({
    input: {
      migrationId: await createKeyMigration(api.em(), workspace.workspaceId),
      apiId: await newApi(),
      keys: [{ hash: next('imported_hash') }],
    },
  }),
  'permissions.createPermission': async () => {
    const slug = next('perm');
    return { input: { name: slug, slug } };
  },
  'permissions.createRole': async () => ({ input: { name: next('role') } }),
  'permissions.setRolePermissions': async () => ({
    input: { roleId: (await newRole()).roleId, permissions: [next('perm')] },
  }),
  'permissions.deletePermission': async () => {
    const slug = next('perm');
    await call('permissions.createPermission', { name: slug, slug });
    return { input: { permission: slug } };
  },
  'permissions.deleteRole': async () => ({ input: { role: (await newRole()).name } }),
  'ratelimit.limit': async () => ({
    input: { namespace: next('namespace'), identifier: 'user', limit: 10, duration: 60_000 },
  }),
  'ratelimit.multiLimit': async () => ({
    input: [{ namespace: next('namespace'), identifier: 'user', limit: 10, duration: 60_000 }],
  }),
  'ratelimit.createNamespace': async () => ({ input: { name: next('namespace') } }),
  'ratelimit.deleteNamespace': async () => ({ input: { namespace: await newNamespace() } }),
  'ratelimit.setOverride': async () => ({
    input: { namespace: await newNamespace(), identifier: 'user', limit: 1, duration: 60_000 },
  }),
  'ratelimit.deleteOverride': async () => {
    const namespace = await newNamespace();
    await call('ratelimit.setOverride', { namespace, identifier: 'user', limit: 1, duration: 60_000 });
    return { input: { namespace, identifier: 'user' } };
  },
  'rootKeys.createRootKey': async () => ({ input: { permissions: ['api.*.read_api'] } }),
  'rootKeys.updateRootKey': async () => {
    const { rootKeyId } = await workspace.rootKeyWith(['api.*.read_api']);
    return { input: { rootKeyId, expires: Date.now() + 3_600_000 } };
  },
  'rootKeys.revokeRootKey': async () => {
    const { rootKeyId } = await workspace.rootKeyWith(['api.*.read_api']);
    return { input: { rootKeyId } };
  },
  'webhooks.createEndpoint': async () => ({ input: { url: HOOK_URL, eventTypes: ['*'] } }),
  'webhooks.updateEndpoint': async () => ({ input: { endpointId: await newEndpoint(), enabled: false } }),
  'webhooks.deleteEndpoint': async () => ({ input: { endpointId: await newEndpoint() } }),
  'webhooks.rotateSecret': async () => ({ input: { endpointId: await newEndpoint() } }),
  'webhooks.sendTest': async () => ({ input: { endpointId: await newEndpoint() } }),
  'webhooks.redeliver': async () => {
    const endpointId = await newEndpoint();
    await call('webhooks.sendTest', { endpointId });
    const [delivery] = (await call('webhooks.listDeliveries', { endpointId })).data;
    if (!delivery) throw new Error('sendTest queued no delivery');
    return { input: { deliveryId: delivery.deliveryId } };
  },
  'members.inviteMember': async () => ({ input: { email: `${next('invitee')}@example.test`, role: 'viewer' } }),
  'members.updateMember': async () => ({
    input: { userId: (await signedInPerson(api, workspace.workspaceId, 'viewer')).userId, role: 'member' },
  }),
  'members.removeMember': async () => ({
    input: { userId: (await signedInPerson(api, workspace.workspaceId, 'viewer')).userId },
  }),
  'members.revokeInvitation': async () => {
    const invited = await call('members.inviteMember', { email: `${next('revoked')}@example.test`, role: 'viewer' });
    return { input: { invitationId: invited.invitationId } };
  },
  'members.createPasswordReset': async () => ({
    input: { userId: (await signedInPerson(api, workspace.workspaceId, 'viewer')).userId },
  }),
  // A workspace of its own: the others' calls need theirs.
  'workspace.deleteWorkspace': async () => ({ input: {}, caller: { rootKey: (await api.workspace()).rootKey } }),
  // A person's way in and own account (account.*): each with a person of its own.
  'account.setUpOwner': async () => {
    // A setup link makes the owner of a workspace that has none.
    await rows(api.em(), sql`delete from memberships where role = 'owner'`);
    const input = {
      token: await newSetupToken(api),
      email: `${next('owner')}@example.test`,
      name: 'O',
      password: NEW_PASSWORD,
    };
    return { input, caller: asBrowser };
  },
  'account.signIn': async () => {
    const { email } = await signedInPerson(api, workspace.workspaceId, 'member');
    return { input: { email, password: TEST_PERSON_PASSWORD }, caller: asBrowser };
  },
  'account.switchWorkspace': async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    return { input: { workspaceId: workspace.workspaceId }, caller: { session: person.session } };
  },
  'account.updateProfile': async () => ({
    input: { name: 'Renamed' },
    caller: { session: (await signedInPerson(api, workspace.workspaceId, 'member')).session },
  }),
  'account.changePassword': async () => ({
    input: { currentPassword: TEST_PERSON_PASSWORD, newPassword: NEW_PASSWORD },
    caller: { session: (await signedInPerson(api, workspace.workspaceId, 'member')).session },
  }),
  'account.signOutEverywhere': async () => ({
    input: undefined,
    caller: { session: (await signedInPerson(api, workspace.workspaceId, 'member')).session },
  }),
  'account.acceptInvitation': async () => {
    const email = `${next('invited')}@example.test`;
    const { token } = await newInvitationToken(api, { workspaceId: workspace.workspaceId, email, role: 'viewer' });
    return { input: { token, name: 'I', password: NEW_PASSWORD }, caller: asBrowser };
  },
  'account.resetPassword': async () => {
    const { userId } = await signedInPerson(api, workspace.workspaceId, 'member');
    return { input: { token: await newPasswordResetToken(api, userId), password: NEW_PASSWORD }, caller: asBrowser };
  },
  'workspace.setRootKeySignIn': async () => ({ input: { enabled: true } }),
  'account.passkeyRegistrationOptions': async () => ({
    input: undefined,
    caller: await signedInPerson(api, workspace.workspaceId, 'member'),
  }),
  'account.addPasskey': async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const options = await call('account.passkeyRegistrationOptions', undefined, person);
    return { input: { name: 'Key', response: softwareAuthenticator().register(options, api.url) }, caller: person };
  },
  'account.renamePasskey': async () => {
    const { person, passkeyId } = await personWithPasskey();
    return { input: { passkeyId, name: 'Renamed' }, caller: person };
  },
  'account.removePasskey': async () => {
    const { person, passkeyId } = await personWithPasskey();
    return { input: { passkeyId }, caller: person };
  },
  'account.passkeySignInOptions': async () => ({ input: undefined, caller: asBrowser }),
  'account.signInWithPasskey': async () => {
    const { authenticator } = await personWithPasskey();
    const options = await call('account.passkeySignInOptions', undefined, asBrowser);
    return { input: { response: authenticator.signIn(options, api.url) }, caller: asBrowser };
  },
  // Customer key portals: the provider's with the root key, the customer's with a session of their own.
  'portal.createPortal': async () => ({ input: { apiId: await newApi(), displayName: 'Acme' } }),
  'portal.updatePortal': async () => ({ input: { portalId: await newPortal(), enabled: false } }),
  'portal.deletePortal': async () => ({ input: { portalId: await newPortal() } }),
  'portal.createSession': async () => ({
    input: { portal: await newPortal(), externalId: next('customer'), scopes: ['keys:read'] },
  }),
  'portal.revokeSession': async () => {
    const portal = await newPortal();
    const externalId = next('customer');
    await call('portal.createSession', { portal, externalId, scopes: ['keys:read'] });
    return { input: { portal, externalId } };
  },
  'portal.exchangeCode': async () => ({ input: { code: (await newCustomer()).code }, caller: asPortalPage }),
  'portal.createKey': async () => ({ input: {}, caller: await customerCaller() }),
  'portal.rerollKey': async () => {
    const caller = await customerCaller();
    const { keyId } = await call('portal.createKey', {}, caller);
    return { input: { keyId, expiration: 0 }, caller };
  },
  'portal.updateKey': async () => {
    const caller = await customerCaller();
    const { keyId } = await call('portal.createKey', {}, caller);
    return { input: { keyId, name: 'renamed' }, caller };
  },
  'portal.deleteKey': async () => {
    const caller = await customerCaller();
    const { keyId } = await call('portal.createKey', {}, caller);
    return { input: { keyId }, caller };
  },
  'dashboard.signIn': async () => ({
    input: { rootKey: workspace.rootKey },
    caller: { headers: { 'x-keyplane-dashboard': '1' } },
  }),
  'dashboard.signOut': async () => ({
    input: undefined,
    caller: { headers: dashboardHeaders(await signIn(api, workspace.rootKey)) },
  }),
};

const asPortalPage: Caller = { headers: { 'x-keyplane-portal': '1' } };
/** A session's code for a new customer of a new portal, with every scope. */
async function newCustomer() {
  const { url } = await call('portal.createSession', {
    portal: await newPortal(),
    externalId: next('customer'),
    scopes: ['keys:read', 'keys:create', 'keys:reroll', 'keys:update', 'keys:delete'],
  });
  return { code: new URL(url).searchParams.get('code') ?? '' };
}
/** The portal page of a customer who exchanged their code: their cookie and the page's header. */
async function customerCaller(): Promise<Caller> {
  const { accessToken } = await call('portal.exchangeCode', { code: (await newCustomer()).code }, asPortalPage);
  return { headers: { Cookie: `portal_session=${accessToken}`, 'x-keyplane-portal': '1' } };
}

/** A member with a passkey made by a software authenticator, for the account.* passkey scenarios. */
async function personWithPasskey() {
  const person = await signedInPerson(api, workspace.workspaceId, 'member');
  const authenticator = softwareAuthenticator();
  const options = await call('account.passkeyRegistrationOptions', undefined, person);
  const response = authenticator.register(options, api.url);
  const { passkeyId } = await call('account.addPasskey', { name: 'Key', response }, person);
  return { person, authenticator, passkeyId };
}

const mutations = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
  .filter(([, procedure]) => procedure._def.type === 'mutation')
  .map(([path]) => path as ProcedurePath);

describe('every mutation settles what it changed before it answers', () => {
  it('has a scenario here for every mutation of the router (add one for a new mutation)', () => {
    expect(mutations.filter((path) => scenarios[path] === undefined)).toEqual([]);
  });

  it.each(mutations)('%s', async (path) => {
    const scenario = scenarios[path];
    if (!scenario) throw new Error(`no scenario for ${path}`);
    const { input, caller } = await scenario();
    // Whatever the setup announced has been settled by its own calls.
    otherNode.heard = 0;
    otherNode.acknowledgedAt = undefined;
    await call(path, input as never, caller);
    const answeredAt = performance.now();
    // An announcement reaches this listener at commit, maybe after an unsettled answer.
    await new Promise((resolve) => setTimeout(resolve, 2 * HOLD_MS));
    const { heard, acknowledgedAt } = otherNode as { heard: number; acknowledgedAt?: number };
    if (heard > 0) {
      expect(acknowledgedAt, `${path} answered without waiting for the other node`).toBeDefined();
      expect(answeredAt).toBeGreaterThan(acknowledgedAt ?? Number.POSITIVE_INFINITY);
    }
  });
});

describe('a change answers only once the other node acknowledges it', () => {
  it('keys.deleteKey waits for an acknowledgement held back, and answers as soon as it comes', async () => {
    const { keyId } = await newKey();
    let release = () => {};
    otherNode.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      let answered = false;
      const deleted = call('keys.deleteKey', { keyId }).then(() => {
        answered = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answered).toBe(false);
      const releasedAt = performance.now();
      release();
      await deleted;
      expect(answered).toBe(true);
      // Not the one-second bound on waiting: the acknowledgement itself ended the wait.
      expect(performance.now() - releasedAt).toBeLessThan(400);
    } finally {
      otherNode.gate = undefined;
    }
  });
});
