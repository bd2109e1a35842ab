import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { INVALID_RESOURCE_IDS } from '../keyCases.ts';
import {
  ALL_SCOPES,
  callAsCustomer,
  createCustomerKey,
  createTestPortal,
  customerSession,
  itAnswersKeyNotFound,
  itKeepsCustomersApart,
  itRefusesWithoutALiveSession,
  itRefusesWithoutTheScope,
  listedKeys,
  sessionAuditEvents,
  useCustomer,
} from '../portal.ts';

// A customer renames one of their keys: the only setting a customer changes (docs/portal.md#scopes).
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'ursula');
const updateKey = { procedure: 'portal.updateKey', input: (keyId: string) => ({ keyId, name: 'taken over' }) };

describe('200', () => {
  it('renames the customer’s key, at /trpc and at /v2, answering nothing more', async () => {
    const { keyId } = await createCustomerKey(api, customer.accessToken, 'first name');
    const renamed = await callAsCustomer(api, 'portal.updateKey', { keyId, name: 'ci' }, customer.accessToken);
    expect([renamed.status, renamed.data]).toEqual([200, {}]);
    expect(await listedKeys(api, customer.accessToken)).toContainEqual({ keyId, name: 'ci' });
    const v2 = await api.call('portal.updateKey', { keyId, name: 'deploys' }, customer.accessToken);
    expect([v2.status, v2.body.data]).toEqual([200, {}]);
    const key = await api.call('keys.getKey', { keyId }, workspace.rootKey);
    expect(key.body.data?.name).toBe('deploys');
  });

  it('is recorded in the audit log with the customer as actor, after the session, the exchange and the create', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { portalId } = await createTestPortal(api, rootKey);
    const { sessionId, accessToken } = await customerSession(api, rootKey, portalId, 'hana');
    const { keyId } = await createCustomerKey(api, accessToken);
    await callAsCustomer(api, 'portal.updateKey', { keyId, name: 'renamed' }, accessToken);
    const events = await sessionAuditEvents(api, workspaceId, sessionId);
    expect(events.map(({ event }) => event)).toEqual([
      ['portal.createSession', false, null],
      ['portal.exchangeCode', true, 'hana'],
      ['portal.createKey', true, 'hana'],
      ['portal.updateKey', true, 'hana'],
    ]);
    expect(events[0]?.resources).toEqual({ portalId, externalId: 'hana', sessionId });
    expect(events[3]?.resources).toMatchObject({ portalId, sessionId, keyId });
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'portal.updateKey', () => customer.accessToken);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'n'.repeat(256)],
    ['of the wrong type', 7],
  ])('rejects a name %s', async (_, name) => {
    await expectInvalid({ keyId: 'key_abc', name }, 'body.name');
  });

  it('rejects any field but the name, changing nothing: a customer cannot disable or re-credit a key', async () => {
    const { keyId } = await createCustomerKey(api, customer.accessToken, 'kept');
    await expectInvalid({ keyId, name: 'changed', enabled: false }, 'body.enabled');
    await expectInvalid({ keyId, name: 'changed', credits: { remaining: 5 } }, 'body.credits');
    expect(await listedKeys(api, customer.accessToken)).toContainEqual({ keyId, name: 'kept' });
  });
});

describe('401', () => {
  itRefusesWithoutALiveSession(api, workspace, updateKey);
});

describe('403', () => {
  itRefusesWithoutTheScope(api, workspace, updateKey, 'keys:update', [
    ['keys:read'],
    ALL_SCOPES.filter((scope) => scope !== 'keys:update'),
  ]);
});

describe('404', () => {
  itAnswersKeyNotFound(api, workspace, updateKey);
});

describe('cross-customer isolation', () => {
  itKeepsCustomersApart(api, workspace, updateKey);
});
