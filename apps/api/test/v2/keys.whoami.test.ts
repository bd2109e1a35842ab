import { beforeAll, describe, expect, it } from 'vitest';
import { expectMissingPermissions, invalidInputCheck, itRejectsField } from '../assertions.ts';
import { storedKey } from '../dbInspect.ts';
import { type NewKeyInput, useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey, ERRORS_BASE_URL } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace({ vault: true });
let apiId: string;

beforeAll(async () => {
  apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
});

const newKey = (body: NewKeyInput = {}) => createTestKey(api, workspace.rootKey, { apiId, ...body });
const whoami = (body: InputOf<'keys.whoami'>, rootKey = workspace.rootKey) => api.call('keys.whoami', body, rootKey);

describe('200', () => {
  it('identifies a key by its string, with the same data as keys.getKey', async () => {
    const { keyId, key } = await newKey({
      prefix: 'who',
      name: 'Acme',
      meta: { plan: 'pro' },
      permissions: ['documents.read'],
      externalId: 'whoami_user',
      credits: { remaining: 5, refill: { interval: 'daily', amount: 5 } },
      ratelimits: [{ name: 'per-minute', limit: 10, duration: 60_000 }],
    });
    const reply = await whoami({ key });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      keyId,
      start: key.slice(0, 'who_'.length + 4),
      name: 'Acme',
      permissions: ['documents.read'],
      identity: { externalId: 'whoami_user' },
      credits: { remaining: 5, refill: { interval: 'daily', amount: 5 } },
    });
    const viaGetKey = await api.post('keys.getKey', { keyId }, workspace.rootKey);
    expect(reply.body.data).toEqual(viaGetKey.body.data);
  });

  it('has no verification side effects: no credits spent, no rate limit counted', async () => {
    const { keyId, key } = await newKey({
      credits: { remaining: 1 },
      ratelimits: [{ name: 'once', limit: 1, duration: 60_000, autoApply: true }],
    });
    for (let i = 0; i < 3; i++) expect((await whoami({ key })).status).toBe(200);
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('1');
    const verified = await api.call('keys.verifyKey', { key }, workspace.rootKey);
    expect(verified.body.data).toMatchObject({ code: 'VALID', credits: 0 });
  });

  it('identifies disabled and expired keys without judging them', async () => {
    const disabled = await newKey({ enabled: false });
    const expired = await newKey({ expires: 1000 });
    expect((await whoami({ key: disabled.key })).body.data).toMatchObject({ keyId: disabled.keyId, enabled: false });
    expect((await whoami({ key: expired.key })).body.data).toMatchObject({ keyId: expired.keyId, expires: 1000 });
  });

  it('never returns the plaintext, even of a recoverable key', async () => {
    const { key } = await newKey({ recoverable: true });
    expect((await whoami({ key })).body.data).not.toHaveProperty('plaintext');
  });

  it('with read_key for the key API only', async () => {
    const { key } = await newKey();
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.read_key`]);
    expect((await whoami({ key }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'keys.whoami', () => workspace.rootKey);

  itRejectsField(expectInvalid, 'key', [
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'k'.repeat(513)],
    ['of the wrong type', 42],
  ]);

  it('rejects unknown fields', async () => {
    await expectInvalid({ key: 'sk_abc', keyId: 'key_abc' }, 'body.keyId');
  });

  it('accepts a key of 512 characters (and answers 404 for it)', async () => {
    expect((await whoami({ key: 'k'.repeat(512) })).status).toBe(404);
  });
});

describe('403', () => {
  it('without read_key, naming it (never masked as 404)', async () => {
    const { key } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['api.*.verify_key', 'api.*.read_api']);
    const reply = await whoami({ key }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.read_key`);
  });

  it('with read_key for another API only', async () => {
    const { key } = await newKey();
    const { rootKey } = await workspace.rootKeyWith(['api.api_other.read_key']);
    expect((await whoami({ key }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for a string that is no key', async () => {
    const reply = await whoami({ key: 'garbage_1234567890' });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/data/key_not_found`,
      detail: 'The specified key was not found.',
    });
  });

  it('for a deleted key', async () => {
    const { keyId, key } = await newKey();
    expect((await whoami({ key })).status).toBe(200);
    await api.post('keys.deleteKey', { keyId }, workspace.rootKey);
    expect((await whoami({ key })).status).toBe(404);
  });

  it('for a string that is no key, whatever the permissions', async () => {
    const { rootKey } = await workspace.rootKeyWith([]);
    expect((await whoami({ key: 'garbage_1234567890' }, rootKey)).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("does not identify another workspace's key", async () => {
    const { key } = await newKey();
    const intruder = await api.workspace();
    const reply = await whoami({ key }, intruder.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe('The specified key was not found.');
  });
});
