import { AUDITED_SERVICES, recordAuditEvent } from '@keyplane/db';
import { appRouter } from '@keyplane/procedures';
import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';
import { signedInPerson } from '../people.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();

const list = (input: InputOf<'audit.listEvents'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'audit.listEvents', input, { rootKey });

describe('200', () => {
  it('records each change with its actor and resource ids, newest first, and never key material', async () => {
    const actor = await workspace.rootKeyWith(['api.*.create_api', 'api.*.create_key', 'api.*.verify_key']);
    const { apiId } = (await api.call('apis.createApi', { name: 'audited' }, actor.rootKey)).body.data;
    const created = await api.call('keys.createKey', { apiId }, actor.rootKey);
    const { keyId, key } = created.body.data;
    // Verifications are not changes: they stay out of the audit log.
    await api.post('keys.verifyKey', { key }, actor.rootKey);
    const reply = await list({});
    expect(reply.status).toBe(200);
    const mine = reply.data.data.filter((event) => event.rootKeyId === actor.rootKeyId);
    expect(mine.map((event) => [event.event, event.resources])).toEqual([
      ['keys.createKey', { apiId, keyId }],
      ['apis.createApi', { apiId }],
    ]);
    expect(JSON.stringify(reply.data)).not.toContain(key);
  });

  it('records dashboard sign-ins and changes made through a session', async () => {
    const session = await signIn(api, workspace.rootKey);
    await callInternal(api, 'apis.createApi', { name: 'via-session' }, { session });
    const [latest, previous] = (await list({})).data.data;
    expect(latest?.event).toBe('apis.createApi');
    expect(previous?.event).toBe('dashboard.signIn');
  });

  it('does not record failed calls', async () => {
    const before = (await list({})).data.data.length;
    await api.post('apis.deleteApi', { apiId: 'api_missing' }, workspace.rootKey);
    expect((await list({})).data.data.length).toBe(before);
  });

  it('pages from newest to oldest', async () => {
    for (const name of ['p1', 'p2', 'p3']) await api.post('apis.createApi', { name }, workspace.rootKey);
    const all = (await list({})).data.data.map((event) => event.id);
    const first = await list({ limit: 2 });
    const second = await list({ limit: 2, cursor: first.data.pagination.cursor });
    expect([...first.data.data, ...second.data.data].map((event) => event.id)).toEqual(all.slice(0, 4));
    expect(all).toEqual([...all].sort().reverse());
  });
});

describe('200 attributed to people', () => {
  it('names the person who made a change in the dashboard, by id and email, and the root key of the rest', async () => {
    const owner = await api.workspace();
    const person = await signedInPerson(api, owner.workspaceId, 'admin', { email: 'ada@example.test' });
    const made = await callProcedure(api, 'apis.createApi', { name: 'by-ada' }, { session: person.session });
    expect(made.status).toBe(200);
    await api.post('apis.createApi', { name: 'by-key' }, owner.rootKey);
    await recordAuditEvent(api.em(), {
      workspaceId: owner.workspaceId,
      rootKeyId: null,
      event: 'cli.rootKeys.create',
      resources: {},
    });
    const events = (await list({}, owner.rootKey)).data.data;
    expect(events.map((event) => [event.event, event.rootKeyId, event.actor])).toEqual([
      ['cli.rootKeys.create', null, { type: 'cli' }],
      ['apis.createApi', expect.any(String), { type: 'rootKey', rootKeyId: events[1]?.rootKeyId }],
      ['apis.createApi', null, { type: 'person', userId: person.userId, email: 'ada@example.test' }],
    ]);
  });

  it('keeps the changes of one person, with their total', async () => {
    const owner = await api.workspace();
    const ada = await signedInPerson(api, owner.workspaceId, 'admin');
    const bob = await signedInPerson(api, owner.workspaceId, 'member');
    for (const [person, name] of [
      [ada, 'ada-1'],
      [bob, 'bob-1'],
      [ada, 'ada-2'],
    ] as const) {
      await callProcedure(api, 'apis.createApi', { name }, { session: person.session });
    }
    await api.post('apis.createApi', { name: 'key-1' }, owner.rootKey);
    const byAda = await list({ userId: ada.userId }, owner.rootKey);
    expect(byAda.data.data.map((event) => event.details?.names?.apiId)).toEqual(['ada-2', 'ada-1']);
    expect(byAda.data.total).toBe(2);
    expect(byAda.data.data.every((event) => event.actor.type === 'person' && event.actor.email === ada.email)).toBe(
      true,
    );
    expect((await list({ userId: 'usr_nobody' }, owner.rootKey)).data.total).toBe(0);
  });

  it('to a viewer, who reads every change and who made it', async () => {
    const owner = await api.workspace();
    const admin = await signedInPerson(api, owner.workspaceId, 'admin');
    await callProcedure(api, 'apis.createApi', { name: 'seen-by-viewer' }, { session: admin.session });
    const viewer = await signedInPerson(api, owner.workspaceId, 'viewer');
    const reply = await callProcedure(api, 'audit.listEvents', { userId: admin.userId }, { session: viewer.session });
    expect(reply.status).toBe(200);
    expect(reply.data.data.map((event) => event.actor)).toEqual([
      { type: 'person', userId: admin.userId, email: admin.email },
    ]);
  });
});

describe('200 for a reader scoped by its grants', () => {
  /** A workspace of its own, with changes about two APIs and about what is no API's. */
  async function workspaceWithTwoApis() {
    const owner = await api.workspace();
    const apiOf = async (name: string) => (await api.call('apis.createApi', { name }, owner.rootKey)).body.data.apiId;
    const [mine, theirs] = [await apiOf('mine'), await apiOf('theirs')];
    const keyOf = async (apiId: string, externalId: string) =>
      (await api.call('keys.createKey', { apiId, externalId }, owner.rootKey)).body.data.keyId;
    const [myKey, theirKey] = [await keyOf(mine, 'my_customer'), await keyOf(theirs, 'their_customer')];
    await api.post('keys.updateKey', { keyId: theirKey, name: 'renamed' }, owner.rootKey);
    await api.post('identities.createIdentity', { externalId: 'loose_customer' }, owner.rootKey);
    await api.post('permissions.createRole', { name: 'auditor' }, owner.rootKey);
    await callInternal(api, 'ratelimit.createNamespace', { name: 'audited.ns' }, { rootKey: owner.rootKey });
    await api.post('webhooks.createEndpoint', { url: 'https://hooks.example.com/a', eventTypes: ['*'] }, owner.rootKey);
    const reader = await owner.rootKeyWith([
      'workspace.*.manage_root_keys',
      `api.${mine}.read_api`,
      `api.${mine}.read_key`,
    ]);
    return { owner, mine, theirs, myKey, theirKey, reader };
  }

  it("shows only the events about what it may read: its API and that API's keys, and the workspace's root keys", async () => {
    const { mine, myKey, theirs, theirKey, reader } = await workspaceWithTwoApis();
    const reply = await list({}, reader.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.data.data.map((event) => [event.event, event.resources])).toEqual([
      ['keys.createKey', { apiId: mine, externalId: 'my_customer', keyId: myKey }],
      ['apis.createApi', { apiId: mine }],
    ]);
    expect(reply.data.total).toBe(2);
    const seen = JSON.stringify(reply.data);
    for (const hidden of [theirs, theirKey, 'their_customer', 'loose_customer']) expect(seen).not.toContain(hidden);
  });

  it('finds nothing of the rest, whatever it filters or searches by, and counts it nowhere', async () => {
    const { theirs, theirKey, reader } = await workspaceWithTwoApis();
    const none = { data: [], pagination: { hasMore: false }, total: 0 };
    for (const input of [
      { resourceId: theirs },
      { resourceId: theirKey },
      { search: 'their_customer' },
      { search: 'loose' },
      { event: 'keys.updateKey' },
      { event: 'permissions.createRole' },
      { event: 'webhooks.createEndpoint' },
    ]) {
      expect((await list(input, reader.rootKey)).data).toEqual(none);
    }
  });

  it("reads the log with workspace.*.read_audit_log, and the root keys' events only with read_root_keys too", async () => {
    const { owner, mine } = await workspaceWithTwoApis();
    await callProcedure(api, 'rootKeys.createRootKey', { permissions: ['api.*.read_api'] }, { rootKey: owner.rootKey });
    const logOnly = await owner.rootKeyWith(['workspace.*.read_audit_log', `api.${mine}.read_api`]);
    expect((await list({}, logOnly.rootKey)).data.data.map((event) => event.event)).toEqual(['apis.createApi']);
    const withRootKeys = await owner.rootKeyWith([
      'workspace.*.read_audit_log',
      'workspace.*.read_root_keys',
      `api.${mine}.read_api`,
    ]);
    expect((await list({}, withRootKeys.rootKey)).data.data.map((event) => event.event)).toEqual([
      'rootKeys.createRootKey',
      'apis.createApi',
    ]);
  });

  it('sees the events of root keys and sign-ins, which managing root keys reads', async () => {
    const { owner, reader } = await workspaceWithTwoApis();
    const created = await callProcedure(
      api,
      'rootKeys.createRootKey',
      { permissions: ['api.*.read_api'] },
      { rootKey: owner.rootKey },
    );
    await signIn(api, owner.rootKey);
    const events = (await list({}, reader.rootKey)).data.data.map((event) => [event.event, event.resources]);
    expect(events.slice(0, 2)).toEqual([
      ['dashboard.signIn', {}],
      ['rootKeys.createRootKey', { rootKeyId: created.data.rootKeyId }],
    ]);
  });

  it('a key of every API: every event of APIs and keys, and not those of identities, roles, namespaces or endpoints', async () => {
    const { owner } = await workspaceWithTwoApis();
    const { rootKey } = await owner.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api', 'api.*.read_key']);
    const services = new Set((await list({}, rootKey)).data.data.map((event) => event.event.split('.')[0]));
    expect([...services].sort()).toEqual(['apis', 'keys']);
    const everything = new Set((await list({}, owner.rootKey)).data.data.map((event) => event.event.split('.')[0]));
    expect([...everything].sort()).toEqual(['apis', 'identities', 'keys', 'permissions', 'ratelimit', 'webhooks']);
  });

  it('knows, for every change the server records, whose grants may see it', () => {
    const audited = Object.entries(
      appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { audit?: boolean } } }>,
    )
      .filter(([, procedure]) => procedure._def.type === 'mutation' && procedure._def.meta?.audit !== false)
      .map(([path]) => path.split('.')[0]);
    expect(audited.length).toBeGreaterThan(0);
    for (const service of audited) expect(AUDITED_SERVICES).toContain(service);
  });
});

describe('200 with what changed', () => {
  it("says what an update changed, before and after, with the names of what it touched and the caller's address", async () => {
    const actor = await workspace.rootKeyWith(['api.*.create_api', 'api.*.create_key', 'api.*.update_key']);
    const { apiId } = (await api.call('apis.createApi', { name: 'billing' }, actor.rootKey)).body.data;
    const created = await api.call(
      'keys.createKey',
      { apiId, name: 'checkout', meta: { plan: 'free' } },
      actor.rootKey,
    );
    const { keyId, key } = created.body.data;
    // Through /trpc, as the dashboard calls, whose transport knows the caller's address.
    const updated = await callProcedure(
      api,
      'keys.updateKey',
      { keyId, name: 'checkout-v2', enabled: false, credits: { remaining: 100 } },
      { rootKey: actor.rootKey },
    );
    expect(updated.status).toBe(200);
    const [update, create] = (await list({ rootKeyId: actor.rootKeyId })).data.data;
    expect(update?.event).toBe('keys.updateKey');
    expect(update?.details?.names).toEqual({ keyId: 'checkout-v2' });
    expect(update?.details?.changes).toEqual([
      { resource: 'keyId', field: 'name', before: 'checkout', after: 'checkout-v2' },
      { resource: 'keyId', field: 'enabled', before: true, after: false },
      { resource: 'keyId', field: 'credits', before: null, after: 100 },
    ]);
    expect(update?.clientAddress).toMatch(/127\.0\.0\.1/);
    // A creation names what it made, in the API it made it in; it changed nothing that was there.
    expect(create?.details).toEqual({ names: { apiId: 'billing', keyId: 'checkout' }, changes: [] });
    expect(JSON.stringify(update)).not.toContain(key);
  });

  it('records the address of a change made at /v2 as well', async () => {
    const actor = await workspace.rootKeyWith(['api.*.create_api', 'api.*.create_key', 'api.*.verify_key']);
    const made = await api.call('apis.createApi', { name: 'addressed' }, actor.rootKey);
    expect(made.status).toBe(200);
    const [created] = (await list({ rootKeyId: actor.rootKeyId })).data.data;
    expect(created?.event).toBe('apis.createApi');
    expect(created?.clientAddress).toMatch(/127\.0\.0\.1/);
  });

  it('names what a deletion took, as it was before', async () => {
    const { apiId } = (await api.call('apis.createApi', { name: 'short-lived' }, workspace.rootKey)).body.data;
    await api.post('apis.deleteApi', { apiId }, workspace.rootKey);
    const [deleted] = (await list({ resourceId: apiId, event: 'apis.deleteApi' })).data.data;
    expect(deleted?.details).toEqual({ names: { apiId: 'short-lived' }, changes: [] });
  });

  it('names what an input refers to by name: an identity by its external id, a namespace, a role', async () => {
    await api.post('identities.createIdentity', { externalId: 'acme' }, workspace.rootKey);
    await api.post('identities.updateIdentity', { identity: 'acme', meta: { plan: 'pro' } }, workspace.rootKey);
    await callProcedure(api, 'ratelimit.createNamespace', { name: 'uploads' }, { rootKey: workspace.rootKey });
    await api.post(
      'ratelimit.setOverride',
      { namespace: 'uploads', identifier: 'acme', limit: 5, duration: 60_000 },
      workspace.rootKey,
    );
    await api.post('permissions.createRole', { name: 'auditor' }, workspace.rootKey);
    await api.post('permissions.deleteRole', { role: 'auditor' }, workspace.rootKey);
    const [deleteRole, , setOverride, , updateIdentity] = (await list({ limit: 6 })).data.data;
    expect(updateIdentity?.event).toBe('identities.updateIdentity');
    expect(updateIdentity?.details).toMatchObject({
      names: { identityId: 'acme' },
      changes: [{ resource: 'identityId', field: 'meta', before: null, after: '{"plan":"pro"}' }],
    });
    expect(setOverride?.details?.names).toEqual({ namespaceId: 'uploads' });
    expect(deleteRole?.details?.names).toEqual({ roleId: 'auditor' });
  });

  it('keeps the changes made in a time range', async () => {
    const before = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await api.post('apis.createApi', { name: 'in-range' }, workspace.rootKey);
    const inRange = await list({ from: before, event: 'apis.createApi' });
    expect(inRange.data.data.map((event) => event.details?.names?.apiId)).toEqual(['in-range']);
    expect(inRange.data.total).toBe(1);
    const beforeIt = await list({ to: before, event: 'apis.createApi' });
    expect(beforeIt.data.data.map((event) => event.details?.names?.apiId)).not.toContain('in-range');
  });
});

describe('200 with filters', () => {
  it('keeps the events of one actor, one action or one resource, with their total', async () => {
    const actor = await workspace.rootKeyWith(['api.*.create_api', 'api.*.create_key', 'api.*.update_key']);
    const { apiId } = (await api.call('apis.createApi', { name: 'filtered' }, actor.rootKey)).body.data;
    const { keyId } = (await api.call('keys.createKey', { apiId }, actor.rootKey)).body.data;
    await api.post('keys.updateKey', { keyId, name: 'renamed' }, actor.rootKey);
    const byActor = await list({ rootKeyId: actor.rootKeyId });
    expect(byActor.data.data.map((event) => event.event)).toEqual([
      'keys.updateKey',
      'keys.createKey',
      'apis.createApi',
    ]);
    expect(byActor.data.total).toBe(3);
    const byAction = await list({ rootKeyId: actor.rootKeyId, event: 'keys.updateKey' });
    expect(byAction.data.data.map((event) => event.resources)).toEqual([{ keyId }]);
    // The key's API, which its page needs, comes with an event that names only the key.
    expect(byAction.data.data[0]?.keyApiId).toBe(apiId);
    const byResource = await list({ resourceId: keyId });
    expect(byResource.data.data.map((event) => event.event)).toEqual(['keys.updateKey', 'keys.createKey']);
    expect(byResource.data.total).toBe(2);
    const searched = await list({ rootKeyId: actor.rootKeyId, search: 'CREATEKEY' });
    expect(searched.data.data.map((event) => event.event)).toEqual(['keys.createKey']);
    expect((await list({ resourceId: 'api_nothing' })).data).toEqual({
      data: [],
      pagination: { hasMore: false },
      total: 0,
    });
  });

  it('pages from oldest to newest when asked', async () => {
    const actor = await workspace.rootKeyWith(['api.*.create_api']);
    for (const name of ['oldest-1', 'oldest-2', 'oldest-3']) await api.post('apis.createApi', { name }, actor.rootKey);
    const newest = (await list({ rootKeyId: actor.rootKeyId })).data.data.map((event) => event.id);
    expect(newest).toHaveLength(3);
    const first = await list({ rootKeyId: actor.rootKeyId, order: 'oldest', limit: 2 });
    const second = await list({
      rootKeyId: actor.rootKeyId,
      order: 'oldest',
      limit: 2,
      cursor: first.data.pagination.cursor,
    });
    expect([...first.data.data, ...second.data.data].map((event) => event.id)).toEqual([...newest].reverse());
    expect(second.data.pagination).toEqual({ hasMore: false });
  });
});

describe('400', () => {
  it.each([
    [{ limit: 0 }],
    [{ cursor: 'x' }],
    [{ order: 'random' }],
    [{ rootKeyId: 'not an id' }],
    [{ userId: 'not an id' }],
    [{ event: '' }],
    [{ resourceId: 'a' }],
    [{ from: -1 }],
    [{ to: 'yesterday' }],
  ])('%j', async (input) => {
    expect((await callInternal(api, 'audit.listEvents', input, { rootKey: workspace.rootKey })).status).toBe(400);
  });
});

describe('403', () => {
  it('without workspace.*.read_audit_log, naming it', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const reply = await list({}, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain('workspace.*.read_audit_log');
  });

  it('to a member, whose role does not read the audit log', async () => {
    const member = await signedInPerson(api, workspace.workspaceId, 'member');
    const reply = await callProcedure(api, 'audit.listEvents', {}, { session: member.session });
    expect(reply.status).toBe(403);
  });
});

describe('cross-workspace isolation', () => {
  it("never shows another workspace's changes", async () => {
    const other = await api.workspace();
    const { apiId } = (await api.call('apis.createApi', { name: 'theirs' }, other.rootKey)).body.data;
    expect(JSON.stringify((await list({})).data)).not.toContain(apiId);
  });
});
