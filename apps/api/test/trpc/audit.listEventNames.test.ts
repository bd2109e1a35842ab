import { describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { signedInPerson } from '../people.ts';

const { api, workspace } = useApiWithWorkspace();

const names = (rootKey = workspace.rootKey) => callProcedure(api, 'audit.listEventNames', undefined, { rootKey });

describe('200', () => {
  it("names each event of the workspace's log once, in order", async () => {
    for (const name of ['names-one', 'names-two']) await api.post('apis.createApi', { name }, workspace.rootKey);
    await callInternal(api, 'ratelimit.createNamespace', { name: 'n-space' }, { rootKey: workspace.rootKey });
    const reply = await names();
    expect(reply.status).toBe(200);
    expect(reply.data.events).toEqual(['apis.createApi', 'ratelimit.createNamespace']);
    expect(reply.data.people).toEqual([]);
  });

  it('names the people who made the changes it may see, once each, by email', async () => {
    const owner = await api.workspace();
    const bea = await signedInPerson(api, owner.workspaceId, 'admin', { email: 'bea@example.test' });
    const al = await signedInPerson(api, owner.workspaceId, 'member', { email: 'al@example.test' });
    for (const person of [bea, al, bea]) {
      await callProcedure(api, 'apis.createApi', { name: `by-${person.email}` }, { session: person.session });
    }
    await callProcedure(api, 'identities.createIdentity', { externalId: 'hidden' }, { session: al.session });
    await signedInPerson(api, owner.workspaceId, 'viewer', { email: 'idle@example.test' });
    expect((await names(owner.rootKey)).data.people).toEqual([
      { userId: al.userId, email: 'al@example.test' },
      { userId: bea.userId, email: 'bea@example.test' },
    ]);
    // Only the people of the events it may see: an identity's change is out of this reader's reach.
    const { rootKey } = await owner.rootKeyWith(['workspace.*.read_audit_log', 'identity.*.read_identity']);
    expect((await names(rootKey)).data).toEqual({
      events: ['identities.createIdentity'],
      people: [{ userId: al.userId, email: 'al@example.test' }],
    });
  });

  it('names only the events the root key may see (docs/contract.md#audit-log)', async () => {
    const owner = await api.workspace();
    const { apiId } = (await api.call('apis.createApi', { name: 'seen' }, owner.rootKey)).body.data;
    await api.post('identities.createIdentity', { externalId: 'unseen' }, owner.rootKey);
    await callInternal(api, 'ratelimit.createNamespace', { name: 'unseen.ns' }, { rootKey: owner.rootKey });
    const { rootKey } = await owner.rootKeyWith(['workspace.*.manage_root_keys', `api.${apiId}.read_api`]);
    expect((await names(rootKey)).data.events).toEqual(['apis.createApi']);
  });

  it('to a root key holding workspace.*.read_audit_log, and to a viewer', async () => {
    const owner = await api.workspace();
    await api.post('apis.createApi', { name: 'read' }, owner.rootKey);
    const { rootKey } = await owner.rootKeyWith(['workspace.*.read_audit_log', 'api.*.read_api']);
    expect((await names(rootKey)).data.events).toEqual(['apis.createApi']);
    const viewer = await signedInPerson(api, owner.workspaceId, 'viewer');
    const asViewer = await callProcedure(api, 'audit.listEventNames', undefined, { session: viewer.session });
    expect(asViewer.status).toBe(200);
    expect(asViewer.data.events).toContain('apis.createApi');
  });
});

describe('400', () => {
  it('with an unknown field', async () => {
    const reply = await callInternal(api, 'audit.listEventNames', { unknown: 1 }, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(400);
  });
});

describe('403', () => {
  it('without workspace.*.read_audit_log, naming it', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectInternalMissingPermissions(await names(rootKey), 'workspace.*.read_audit_log');
  });

  it('to a member, whose role does not read the audit log', async () => {
    const member = await signedInPerson(api, workspace.workspaceId, 'member');
    const reply = await callProcedure(api, 'audit.listEventNames', undefined, { session: member.session });
    expectInternalMissingPermissions(reply, 'workspace.*.read_audit_log');
  });
});

describe('cross-workspace isolation', () => {
  it("never names another workspace's events", async () => {
    const other = await api.workspace();
    await api.post('identities.createIdentity', { externalId: 'theirs' }, other.rootKey);
    expect((await names()).data.events).not.toContain('identities.createIdentity');
  });
});
