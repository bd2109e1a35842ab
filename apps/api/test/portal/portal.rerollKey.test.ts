import { describe, expect, it } from 'vitest';
import { invalidInputCheck, itRejectsField } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi } from '../harness.ts';
import { INVALID_RESOURCE_IDS, verification } from '../keyCases.ts';
import { customerCases, expectTrpcProblem, newCustomer, useCustomer } from '../portal.ts';

// A customer rolls one of their keys: a new key with its settings, the old one working `expiration` ms more.
const { api, workspace } = useApiWithWorkspace({ vault: true });
const customer = useCustomer(api, workspace, 'rolf');
const input = (keyId: string) => ({ keyId, expiration: 0 });
const cases = customerCases(api, workspace, 'portal.rerollKey', input);

describe('200', () => {
  it('answers a new key of the customer; both are listed while the old one works out its grace period', async () => {
    const old = await customer.createKey('rolled');
    const before = Date.now();
    const rolled = await customer.call<{ keyId: string; key: string }>('portal.rerollKey', {
      keyId: old.keyId,
      expiration: 60_000,
    });
    expect(rolled.status).toBe(200);
    expect(rolled.data.keyId).not.toBe(old.keyId);
    const keyIds = (await customer.listed()).map((key) => key.keyId);
    expect(keyIds).toEqual(expect.arrayContaining([old.keyId, rolled.data.keyId]));
    expect(await verification(api, workspace.rootKey, rolled.data.key)).toMatchObject({ valid: true });
    expect(await verification(api, workspace.rootKey, old.key)).toMatchObject({ valid: true });
    const oldKey = await api.call('keys.getKey', { keyId: old.keyId }, workspace.rootKey);
    // As keys.rerollKey: the grace period ends on the minute after `expiration`.
    expect(oldKey.body.data?.expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(oldKey.body.data?.expires).toBeLessThanOrEqual(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
  });

  it('with expiration 0 at /v2: the old key stops at once', async () => {
    const old = await customer.createKey();
    const rolled = await api.call('portal.rerollKey', input(old.keyId), customer.accessToken);
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
    const { keyId } = await customer.createKey('kept');
    const before = await customer.listed();
    await expectInvalid({ ...input(keyId), name: 'new' }, 'body.name');
    expect(await customer.listed()).toEqual(before);
    expect(before).toContainEqual({ keyId, name: 'kept' });
  });
});

describe('401', () => cases.refusesWithoutALiveSession());

describe('403', () => {
  cases.refusesWithoutTheScope('keys:reroll');

  it('for a recoverable key the provider gave the customer: only the provider rolls it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
    const vera = await newCustomer(api, workspace.rootKey, 'vera', { apiId });
    const given = await api.call(
      'keys.createKey',
      { apiId, externalId: vera.externalId, recoverable: true },
      workspace.rootKey,
    );
    expect(given.status).toBe(200);
    const reply = await vera.call('portal.rerollKey', input(given.body.data.keyId));
    expectTrpcProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.error?.message).toMatch(/recoverable key cannot be rolled in the portal/);
    expect((await vera.listed()).map((key) => key.keyId)).toEqual([given.body.data.keyId]);
  });
});

describe('404', () => cases.answersKeyNotFound());

describe('cross-customer isolation', () => cases.keepsCustomersApart());
