import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { INVALID_RESOURCE_IDS, verification } from '../keyCases.ts';
import {
  ALL_SCOPES,
  callAsCustomer,
  createCustomerKey,
  itAnswersKeyNotFound,
  itKeepsCustomersApart,
  itRefusesWithoutALiveSession,
  itRefusesWithoutTheScope,
  listedKeys,
  useCustomer,
} from '../portal.ts';

// A customer deletes one of their keys: softly, as keys.deleteKey does, and at once on every node.
const { api, workspace } = useApiWithWorkspace();
const customer = useCustomer(api, workspace, 'delia');
const deleteKey = { procedure: 'portal.deleteKey', input: (keyId: string) => ({ keyId }) };

describe('200', () => {
  it('deletes the key: it stops verifying before the answer, the customer no longer lists it, their other keys stay', async () => {
    const doomed = await createCustomerKey(api, customer.accessToken, 'doomed');
    const kept = await createCustomerKey(api, customer.accessToken, 'kept');
    expect(await verification(api, workspace.rootKey, doomed.key)).toMatchObject({ code: 'VALID' });
    const reply = await callAsCustomer(api, 'portal.deleteKey', { keyId: doomed.keyId }, customer.accessToken);
    expect([reply.status, reply.data]).toEqual([200, {}]);
    expect(await verification(api, workspace.rootKey, doomed.key)).toEqual({ valid: false, code: 'NOT_FOUND' });
    const listed = await listedKeys(api, customer.accessToken);
    expect(listed).toContainEqual({ keyId: kept.keyId, name: 'kept' });
    expect(listed.map((key) => key.keyId)).not.toContain(doomed.keyId);
  });

  it('deletes at /v2 to the Bearer token', async () => {
    const { keyId } = await createCustomerKey(api, customer.accessToken);
    const reply = await api.call('portal.deleteKey', { keyId }, customer.accessToken);
    expect([reply.status, reply.body.data]).toEqual([200, {}]);
    expect((await api.post('keys.getKey', { keyId }, workspace.rootKey)).status).toBe(404);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'portal.deleteKey', () => customer.accessToken);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  it('rejects any other field, deleting nothing: a customer cannot delete permanently', async () => {
    const { keyId } = await createCustomerKey(api, customer.accessToken, 'kept');
    await expectInvalid({ keyId, permanent: true }, 'body.permanent');
    expect(await listedKeys(api, customer.accessToken)).toContainEqual({ keyId, name: 'kept' });
  });
});

describe('401', () => {
  itRefusesWithoutALiveSession(api, workspace, deleteKey);
});

describe('403', () => {
  itRefusesWithoutTheScope(api, workspace, deleteKey, 'keys:delete', [
    ['keys:read'],
    ALL_SCOPES.filter((scope) => scope !== 'keys:delete'),
  ]);
});

describe('404', () => {
  itAnswersKeyNotFound(api, workspace, deleteKey);
});

describe('cross-customer isolation', () => {
  itKeepsCustomersApart(api, workspace, deleteKey);
});
