import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { INVALID_RESOURCE_IDS, verification } from '../keyCases.ts';
import { customerCases, useCustomer } from '../portal.ts';

// A customer deletes one of their keys: softly, as keys.deleteKey does, and at once on every node.
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'delia');
const cases = customerCases(api, workspace, 'portal.deleteKey', (keyId) => ({ keyId }));

describe('200', () => {
  it('deletes the key: it stops verifying before the answer, the customer no longer lists it, their other keys stay', async () => {
    const doomed = await customer.createKey('doomed');
    const kept = await customer.createKey('kept');
    expect(await verification(api, workspace.rootKey, doomed.key)).toMatchObject({ code: 'VALID' });
    const reply = await customer.call('portal.deleteKey', { keyId: doomed.keyId });
    expect([reply.status, reply.data]).toEqual([200, {}]);
    expect(await verification(api, workspace.rootKey, doomed.key)).toEqual({ valid: false, code: 'NOT_FOUND' });
    const listed = await customer.listed();
    expect(listed).toContainEqual({ keyId: kept.keyId, name: 'kept' });
    expect(listed.map((key) => key.keyId)).not.toContain(doomed.keyId);
  });

  it('deletes at /v2 to the Bearer token', async () => {
    const { keyId } = await customer.createKey();
    const reply = await api.call('portal.deleteKey', { keyId }, customer.accessToken);
    expect([reply.status, reply.body.data]).toEqual([200, {}]);
    expect((await api.post('keys.getKey', { keyId }, workspace.rootKey)).status).toBe(404);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'portal.deleteKey', () => customer.accessToken);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  it('rejects any other field, deleting nothing: a customer cannot delete permanently', async () => {
    const { keyId } = await customer.createKey('kept');
    await expectInvalid({ keyId, permanent: true }, 'body.permanent');
    expect((await api.call('keys.getKey', { keyId }, workspace.rootKey)).body.data?.name).toBe('kept');
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => cases.refusesWithoutTheScope('keys:delete'));

describe('404', () => cases.answersKeyNotFound());

describe('cross-customer isolation', () => cases.keepsCustomersApart());
