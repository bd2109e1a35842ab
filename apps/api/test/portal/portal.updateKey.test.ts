import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { INVALID_RESOURCE_IDS } from '../keyCases.ts';
import { customerCases, newCustomer, sessionAuditEvents, useCustomer } from '../portal.ts';

// A customer renames one of their keys: the only setting a customer changes (docs/portal.md#scopes).
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'ursula');
const cases = customerCases(api, workspace, 'portal.updateKey', (keyId) => ({ keyId, name: 'taken over' }));

describe('200', () => {
  it('renames the customer’s key, at /trpc and at /v2, answering nothing more', async () => {
    const { keyId } = await customer.createKey('first name');
    const renamed = await customer.call('portal.updateKey', { keyId, name: 'ci' });
    expect([renamed.status, renamed.data]).toEqual([200, {}]);
    expect(await customer.listed()).toContainEqual({ keyId, name: 'ci' });
    const v2 = await api.call('portal.updateKey', { keyId, name: 'deploys' }, customer.accessToken);
    expect([v2.status, v2.body.data]).toEqual([200, {}]);
    const key = await api.call('keys.getKey', { keyId }, workspace.rootKey);
    expect(key.body.data?.name).toBe('deploys');
  });

  it('is recorded in the audit log with the customer as actor, after the session, the exchange and the create', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const hana = await newCustomer(api, rootKey, 'hana');
    const { keyId } = await hana.createKey();
    await hana.call('portal.updateKey', { keyId, name: 'renamed' });
    const { portalId, externalId, sessionId } = hana;
    const events = await sessionAuditEvents(api, workspaceId, sessionId);
    expect(events.map(({ event }) => event)).toEqual([
      ['portal.createSession', false, null],
      ['portal.exchangeCode', true, externalId],
      ['portal.createKey', true, externalId],
      ['portal.updateKey', true, externalId],
    ]);
    expect(events[0]?.resources).toEqual({ portalId, externalId, sessionId });
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
    const { keyId } = await customer.createKey('kept');
    await expectInvalid({ keyId, name: 'changed', enabled: false }, 'body.enabled');
    await expectInvalid({ keyId, name: 'changed', credits: { remaining: 5 } }, 'body.credits');
    expect(await customer.listed()).toContainEqual({ keyId, name: 'kept' });
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => cases.refusesWithoutTheScope('keys:update'));

describe('404', () => cases.answersKeyNotFound());

describe('cross-customer isolation', () => cases.keepsCustomersApart());
