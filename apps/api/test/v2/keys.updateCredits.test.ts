import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn, postOn } from '../appVariants.ts';
import { expectInvalidInput, expectMissingPermissions, expectProblem } from '../assertions.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { storedKeyRow, verification } from '../keyCases.ts';
import type { InputOf, ProcedurePath } from '../procedures.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);
const DAY = 86_400_000;

const { newKey } = owner;
const updateCredits = (body: InputOf<'keys.updateCredits'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.updateCredits', body, rootKey);
const verify = (key: string) => verification(api, owner.workspace.rootKey, key);
const stored = (keyId: string) => storedKeyRow(api.em(), keyId);
const daily = { interval: 'daily', amount: 100 };

describe('200', () => {
  it('set: the balance becomes the value, keeping the refill', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10, refill: daily } });
    const reply = await updateCredits({ keyId, operation: 'set', value: 42 });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ remaining: 42, refill: { interval: 'daily', amount: 100 } });
    expect(await stored(keyId)).toMatchObject({ credits_remaining: '42', refill_interval: 'daily' });
  });

  it('set null: the key becomes unlimited and loses its refill', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 10, refill: daily } });
    const reply = await updateCredits({ keyId, operation: 'set', value: null });
    expect(reply.body.data).toEqual({ remaining: null });
    expect(await stored(keyId)).toMatchObject({ credits_remaining: null, refill_interval: null, refill_amount: null });
    expect(await verify(key)).not.toHaveProperty('credits');
  });

  it('set without a value: the key becomes unlimited but keeps its refill', async () => {
    const { keyId } = await newKey({
      credits: { remaining: 10, refill: { ...daily, interval: 'monthly', refillDay: 3 } },
    });
    const reply = await updateCredits({ keyId, operation: 'set' });
    expect(reply.body.data).toEqual({ remaining: null, refill: { interval: 'monthly', amount: 100, refillDay: 3 } });
    expect(await stored(keyId)).toMatchObject({ credits_remaining: null, refill_interval: 'monthly', refill_day: 3 });
  });

  it('set on an unlimited key limits it', async () => {
    const { keyId, key } = await newKey();
    expect((await updateCredits({ keyId, operation: 'set', value: 2 })).body.data).toEqual({ remaining: 2 });
    expect(await verify(key)).toMatchObject({ code: 'VALID', credits: 1 });
  });

  it('increment adds the value', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    expect((await updateCredits({ keyId, operation: 'increment', value: 5 })).body.data).toEqual({ remaining: 15 });
    expect((await updateCredits({ keyId, operation: 'increment', value: 0 })).body.data).toEqual({ remaining: 15 });
    expect((await stored(keyId)).credits_remaining).toBe('15');
  });

  it('decrement subtracts the value and stops at 0', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    expect((await updateCredits({ keyId, operation: 'decrement', value: 3 })).body.data).toEqual({ remaining: 7 });
    expect((await updateCredits({ keyId, operation: 'decrement', value: 100 })).body.data).toEqual({ remaining: 0 });
    expect((await stored(keyId)).credits_remaining).toBe('0');
  });

  it('handles large balances exactly', async () => {
    const { keyId } = await newKey({ credits: { remaining: 0 } });
    const big = 2 ** 52;
    await updateCredits({ keyId, operation: 'set', value: big });
    expect((await updateCredits({ keyId, operation: 'increment', value: big - 1 })).body.data).toEqual({
      remaining: 2 ** 53 - 1,
    });
  });

  it('loses no update under 50 concurrent increments', async () => {
    const { keyId } = await newKey({ credits: { remaining: 7 } });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => updateCredits({ keyId, operation: 'increment', value: 1 })),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    expect((await stored(keyId)).credits_remaining).toBe('57');
    // Every answer saw a different balance: each increment acted on the previous one's result.
    expect(new Set(replies.map((reply) => reply.body.data.remaining)).size).toBe(50);
  });

  it('stays exact with increments and verifications racing', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 30 } });
    const results = await Promise.all([
      ...Array.from({ length: 30 }, () => updateCredits({ keyId, operation: 'increment', value: 2 })),
      ...Array.from({ length: 30 }, () => verify(key)),
    ]);
    expect(results.slice(30).every((result) => 'code' in result && result.code === 'VALID')).toBe(true);
    expect((await stored(keyId)).credits_remaining).toBe(String(30 + 60 - 30));
  });

  it('is seen by verification at once, though this node had the key cached', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 1 } });
    expect(await verify(key)).toMatchObject({ code: 'VALID', credits: 0 });
    expect(await verify(key)).toMatchObject({ code: 'USAGE_EXCEEDED' });
    await updateCredits({ keyId, operation: 'increment', value: 5 });
    expect(await verify(key)).toMatchObject({ code: 'VALID', credits: 4 });
    await updateCredits({ keyId, operation: 'set', value: 0 });
    expect(await verify(key)).toMatchObject({ code: 'USAGE_EXCEEDED', credits: 0 });
  });

  it('switches a cached key between limited and unlimited at once', async () => {
    const { keyId, key } = await newKey();
    expect(await verify(key)).not.toHaveProperty('credits');
    await updateCredits({ keyId, operation: 'set', value: 1 });
    expect(await verify(key)).toMatchObject({ code: 'VALID', credits: 0 });
    expect(await verify(key)).toMatchObject({ code: 'USAGE_EXCEEDED' });
    await updateCredits({ keyId, operation: 'set', value: null });
    const unlimited = await verify(key);
    expect(unlimited.code).toBe('VALID');
    expect(unlimited).not.toHaveProperty('credits');
  });

  it('applies a refill that fell due before changing the balance, and only once', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 0, refill: { interval: 'daily', amount: 50 } } });
    const tomorrow = Date.now() + DAY;
    const at = <P extends ProcedurePath>(procedure: P, input: InputOf<P>) =>
      callOn(api, { now: tomorrow }, procedure, input, owner.workspace.rootKey);
    const incremented = await at('keys.updateCredits', { keyId, operation: 'increment', value: 5 });
    expect(incremented.body.data.remaining).toBe(55);
    const verified = await at('keys.verifyKey', { key });
    expect(verified.body.data.credits).toBe(54);
  });

  it('a set after a refill fell due is not overwritten by that refill', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 0, refill: { interval: 'daily', amount: 50 } } });
    const tomorrow = Date.now() + DAY;
    await postOn(
      api,
      { now: tomorrow },
      'keys.updateCredits',
      { keyId, operation: 'set', value: 3 },
      owner.workspace.rootKey,
    );
    const verified = await callOn(api, { now: tomorrow }, 'keys.verifyKey', { key }, owner.workspace.rootKey);
    expect(verified.body.data.credits).toBe(2);
  });

  it.each([['api.*.update_key'], ['apis.*.update_key'], ['api.API_ID.update_key']])(
    'with the grant %s',
    async (grant) => {
      const { keyId } = await newKey({ credits: { remaining: 1 } });
      const { rootKey } = await owner.workspace.rootKeyWith([grant.replace('API_ID', owner.apiId)]);
      expect((await updateCredits({ keyId, operation: 'increment', value: 1 }, rootKey)).status).toBe(200);
    },
  );
});

describe('400', () => {
  const expectInvalid = async (body: unknown, location: string) => {
    const reply = await api.post('keys.updateCredits', body, owner.workspace.rootKey);
    expectInvalidInput(reply, location);
    return reply;
  };

  it.each([
    ['keyId', undefined],
    ['keyId', 'ab'],
    ['keyId', 'key-1'],
    ['operation', undefined],
    ['operation', 'add'],
    ['operation', 'SET'],
    ['value', -1],
    ['value', 1.5],
    ['value', '5'],
    ['value', 2 ** 53],
  ])('rejects %s = %j', async (field, value) => {
    const body: Record<string, unknown> = { keyId: 'key_abc', operation: 'set', value: 1 };
    if (value === undefined) delete body[field];
    else body[field] = value;
    await expectInvalid(body, `body.${field}`);
  });

  it('rejects unknown fields', async () => {
    await expectInvalid({ keyId: 'key_abc', operation: 'set', value: 1, refill: null }, 'body.refill');
  });

  it.each([
    ['increment', undefined],
    ['increment', null],
    ['decrement', undefined],
    ['decrement', null],
  ])('%s without a value (%j), changing nothing', async (operation, value) => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    const reply = await expectInvalid({ keyId, operation, ...(value === undefined ? {} : { value }) }, 'body.value');
    expect(reply.body.error.detail).toBe(
      'When specifying an increment or decrement operation, a value must be provided.',
    );
    expect((await stored(keyId)).credits_remaining).toBe('10');
  });

  it('an increment past 2^53 − 1, naming the largest balance and changing nothing', async () => {
    const { keyId } = await newKey({ credits: { remaining: Number.MAX_SAFE_INTEGER } });
    const before = await api.post('keys.getKey', { keyId }, owner.workspace.rootKey);
    const reply = await expectInvalid({ keyId, operation: 'increment', value: 10 }, 'body.value');
    expect(reply.body.error.detail).toBe(
      "The increment would take the key's remaining credits past 9007199254740991, the largest balance a key can hold.",
    );
    expect((await stored(keyId)).credits_remaining).toBe('9007199254740991');
    const after = await api.post('keys.getKey', { keyId }, owner.workspace.rootKey);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    expect((await api.post('apis.listKeys', { apiId: owner.apiId }, owner.workspace.rootKey)).status).toBe(200);
  });

  it('an increment that only a due refill takes past 2^53 − 1, leaving the refill unapplied', async () => {
    const refill = { interval: 'daily', amount: Number.MAX_SAFE_INTEGER };
    const { keyId } = await newKey({ credits: { remaining: 0, refill } });
    const lastRefill = async () =>
      (await rows(api.em(), sql<{ at: string }>`select last_refill_at::text as at from keys where id = ${keyId}`))[0]
        ?.at;
    const refilledBefore = await lastRefill();
    const reply = await callOn(
      api,
      { now: Date.now() + DAY },
      'keys.updateCredits',
      { keyId, operation: 'increment', value: 1 },
      owner.workspace.rootKey,
    );
    expect(reply.status).toBe(400);
    expect((await stored(keyId)).credits_remaining).toBe('0');
    expect(await lastRefill()).toBe(refilledBefore);
  });

  it.each([['increment'], ['decrement']] as const)(
    '%s on a key with unlimited credits, changing nothing',
    async (operation) => {
      const { keyId } = await newKey({ credits: { remaining: null } });
      const reply = await updateCredits({ keyId, operation, value: 5 });
      expect(reply.status).toBe(400);
      expect(reply.body.error.detail).toBe('You cannot increment or decrement a key with unlimited credits.');
      expect((await stored(keyId)).credits_remaining).toBeNull();
    },
  );
});

describe('403', () => {
  it('without update_key, naming it, changing nothing', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_key', 'api.*.create_key']);
    const reply = await updateCredits({ keyId, operation: 'set', value: 1000 }, rootKey);
    expectMissingPermissions(reply, `api.${owner.apiId}.update_key`);
    expect((await stored(keyId)).credits_remaining).toBe('10');
  });

  it('with update_key for another API only', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.update_key']);
    expect((await updateCredits({ keyId, operation: 'increment', value: 1 }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for a key that does not exist', async () => {
    expectProblem(
      await updateCredits({ keyId: 'key_doesnotexist', operation: 'set', value: 1 }),
      404,
      'service/data/key_not_found',
    );
  });

  it('to a root key that may act on the keys of every API', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.update_key']);
    expect((await updateCredits({ keyId: 'key_doesnotexist', operation: 'set', value: 1 }, rootKey)).status).toBe(404);
  });

  it('for a deleted key', async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    await api.post('keys.deleteKey', { keyId }, owner.workspace.rootKey);
    expect((await updateCredits({ keyId, operation: 'increment', value: 1 })).status).toBe(404);
    expect((await stored(keyId)).credits_remaining).toBe('10');
  });
});

describe('cross-workspace isolation', () => {
  it("cannot change another workspace's key", async () => {
    const { keyId } = await newKey({ credits: { remaining: 10 } });
    const intruder = await api.workspace();
    const bodies: InputOf<'keys.updateCredits'>[] = [
      { keyId, operation: 'set', value: 1_000_000 },
      { keyId, operation: 'set', value: null },
      { keyId, operation: 'increment', value: 5 },
    ];
    for (const body of bodies) {
      expect((await updateCredits(body, intruder.rootKey)).status).toBe(404);
    }
    expect((await stored(keyId)).credits_remaining).toBe('10');
  });
});
