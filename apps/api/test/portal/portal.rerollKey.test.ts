import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi } from '../harness.ts';
import { INVALID_RESOURCE_IDS, verification } from '../keyCases.ts';
import {
  ALL_SCOPES,
  callAsCustomer,
  createCustomerKey,
  createTestPortal,
  customerSession,
  expectTrpcProblem,
  itAnswersKeyNotFound,
  itKeepsCustomersApart,
  itRefusesWithoutALiveSession,
  itRefusesWithoutTheScope,
  listedKeys,
  newCustomerId,
  useCustomer,
} from '../portal.ts';

// A customer rolls one of their keys: a new key with its settings, the old one working `expiration` ms more.
const { api, workspace } = useApiWithWorkspace({ vault: true });
const customer = useCustomer(api, workspace, 'rolf');
const rerollKey = { procedure: 'portal.rerollKey', input: (keyId: string) => ({ keyId, expiration: 0 }) };

describe('200', () => {
  it('answers a new key of the customer; both are listed while the old one works out its grace period', async () => {
    const old = await createCustomerKey(api, customer.accessToken, 'rolled');
    const before = Date.now();
    const rolled = await callAsCustomer<{ keyId: string; key: string }>(
      api,
      'portal.rerollKey',
      { keyId: old.keyId, expiration: 60_000 },
      customer.accessToken,
    );
    expect(rolled.status).toBe(200);
    expect(rolled.data.keyId).not.toBe(old.keyId);
    const keyIds = (await listedKeys(api, customer.accessToken)).map((key) => key.keyId);
    expect(keyIds).toEqual(expect.arrayContaining([old.keyId, rolled.data.keyId]));
    expect(await verification(api, workspace.rootKey, rolled.data.key)).toMatchObject({ valid: true });
    expect(await verification(api, workspace.rootKey, old.key)).toMatchObject({ valid: true });
    const oldKey = await api.call('keys.getKey', { keyId: old.keyId }, workspace.rootKey);
    // As keys.rerollKey: the grace period ends on the minute after `expiration`.
    expect(oldKey.body.data?.expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(oldKey.body.data?.expires).toBeLessThanOrEqual(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
  });

  it('with expiration 0 at /v2: the old key stops at once', async () => {
    const old = await createCustomerKey(api, customer.accessToken);
    const rolled = await api.call('portal.rerollKey', { keyId: old.keyId, expiration: 0 }, customer.accessToken);
    expect(rolled.status).toBe(200);
    expect(await verification(api, workspace.rootKey, old.key)).toMatchObject({ valid: false });
    expect(await verification(api, workspace.rootKey, rolled.body.data.key)).toMatchObject({ valid: true });
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'portal.rerollKey', () => customer.accessToken);

  itRejectsField(expectInvalid, 'keyId', INVALID_RESOURCE_IDS);

  it.each([
    ['missing', undefined],
    ['negative', -1],
    ['fractional', 1.5],
    ['of the wrong type', '60000'],
  ])('rejects an expiration %s', async (_, expiration) => {
    await expectInvalid({ keyId: 'key_abc', expiration }, 'body.expiration');
  });

  it('rejects any other field, rolling nothing', async () => {
    const { keyId } = await createCustomerKey(api, customer.accessToken, 'kept');
    const before = await listedKeys(api, customer.accessToken);
    await expectInvalid({ keyId, expiration: 0, name: 'new' }, 'body.name');
    expect(await listedKeys(api, customer.accessToken)).toEqual(before);
    expect(before).toContainEqual({ keyId, name: 'kept' });
  });
});

describe('401', () => {
  itRefusesWithoutALiveSession(api, workspace, rerollKey);
});

describe('403', () => {
  itRefusesWithoutTheScope(api, workspace, rerollKey, 'keys:reroll', [
    ['keys:read'],
    ALL_SCOPES.filter((scope) => scope !== 'keys:reroll'),
  ]);

  it('for a recoverable key the provider gave the customer: only the provider rolls it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
    const { portalId } = await createTestPortal(api, workspace.rootKey, { apiId });
    const externalId = newCustomerId('vera');
    const { accessToken } = await customerSession(api, workspace.rootKey, portalId, externalId);
    const given = await api.call('keys.createKey', { apiId, externalId, recoverable: true }, workspace.rootKey);
    expect(given.status).toBe(200);
    const reply = await callAsCustomer(api, 'portal.rerollKey', rerollKey.input(given.body.data.keyId), accessToken);
    expectTrpcProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.error?.message).toMatch(/recoverable key cannot be rolled in the portal/);
    expect((await listedKeys(api, accessToken)).map((key) => key.keyId)).toEqual([given.body.data.keyId]);
  });
});

describe('404', () => {
  itAnswersKeyNotFound(api, workspace, rerollKey);
});

describe('cross-customer isolation', () => {
  itKeepsCustomersApart(api, workspace, rerollKey);
});
