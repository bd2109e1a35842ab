import { beforeAll, describe, expect, it } from 'vitest';
import { postOn } from '../appVariants.ts';
import { expectInvalidInput, expectMissingPermissions } from '../assertions.ts';
import { countRows, identityRatelimits, keyRatelimits, storedIdentities } from '../dbInspect.ts';
import { type JsonText, withNestedMeta } from '../harness.ts';
import { expectNoSuchIdentity, itNeedsTheIdentityPermissionFirst, useIdentityOwner } from '../identities.ts';
import type { InputOf } from '../procedures.ts';
import { useSecondNode } from '../secondNode.ts';

const { api, owner, newKey, newIdentity, verify } = useIdentityOwner();

const updateIdentity = (body: InputOf<'identities.updateIdentity'>, rootKey = owner.workspace.rootKey) =>
  api.call('identities.updateIdentity', body, rootKey);
const getIdentity = async (identity: string) =>
  (await api.call('identities.getIdentity', { identity }, owner.workspace.rootKey)).body.data;
const limitsByName = async (identityId: string) =>
  Object.fromEntries((await identityRatelimits(api.em(), identityId)).map(({ name, ...limit }) => [name, limit]));

/** An identity with a rate limit of each name, the n-th allowing n requests per n seconds. */
const identityWithLimits = (externalId: string, names: string[]) =>
  newIdentity({ externalId, ratelimits: names.map((name, i) => ({ name, limit: i + 1, duration: (i + 1) * 1000 })) });

/** The identity limit these tests change: `limit` requests a minute, applied to every key of the identity. */
const requestsPerMinute = (limit: number) => ({ name: 'requests', limit, duration: 60_000, autoApply: true });

describe('200', () => {
  it('answers the identity unchanged when nothing is to change', async () => {
    const id = await newIdentity({
      externalId: 'unchanged',
      meta: { plan: 'pro' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
    });
    const before = await getIdentity(id);
    const reply = await updateIdentity({ identity: id });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(before);
    expect(await getIdentity(id)).toEqual(before);
  });

  it('replaces the meta whole (no merge), by externalId, keeping the rate limits', async () => {
    const id = await newIdentity({
      externalId: 'meta_user',
      meta: { plan: 'pro', seats: 3 },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
    });
    const limitsBefore = await limitsByName(id);
    const reply = await updateIdentity({ identity: 'meta_user', meta: { plan: 'enterprise' } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ id, externalId: 'meta_user', meta: { plan: 'enterprise' } });
    expect(reply.body.data.ratelimits?.map((limit) => limit.name)).toEqual(['requests']);
    expect((await storedIdentities(api.em(), owner.workspace.workspaceId, 'meta_user'))[0]?.meta).toEqual({
      plan: 'enterprise',
    });
    expect(await limitsByName(id)).toEqual(limitsBefore);
  });

  it.each([
    ['{}', {}],
    ['null', null],
  ])('meta %s clears it', async (_, meta) => {
    const externalId = `cleared_${meta === null ? 'null' : 'empty'}`;
    const id = await newIdentity({ externalId, meta: { plan: 'pro' } });
    const reply = await updateIdentity({ identity: id, meta });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ id, externalId });
    expect((await storedIdentities(api.em(), owner.workspace.workspaceId, externalId))[0]?.meta).toBeNull();
  });

  it('replaces rate limits by name: same names keep their ids, missing go, new come', async () => {
    const id = await identityWithLimits('limits_user', ['keep', 'drop']);
    const before = await limitsByName(id);
    const reply = await updateIdentity({
      identity: id,
      ratelimits: [
        { name: 'keep', limit: 100, duration: 60_000, autoApply: true },
        { name: 'new', limit: 3, duration: 3000 },
      ],
    });
    expect(reply.status).toBe(200);
    const after = await limitsByName(id);
    expect(Object.keys(after)).toEqual(['keep', 'new']);
    expect(after.keep).toEqual({ id: before.keep?.id, limit: 100, duration_ms: '60000', auto_apply: true });
    expect(after.new).toMatchObject({ limit: 3, duration_ms: '3000', auto_apply: false });
    expect(after.new?.id).toMatch(/^rl_/);
    expect(reply.body.data.ratelimits).toEqual([
      { id: before.keep?.id, name: 'keep', limit: 100, duration: 60_000, autoApply: true },
      { id: after.new?.id, name: 'new', limit: 3, duration: 3000, autoApply: false },
    ]);
  });

  it('[] removes every rate limit; leaving ratelimits out keeps them', async () => {
    const id = await identityWithLimits('emptied_user', ['one', 'two']);
    await updateIdentity({ identity: id, meta: { touched: true } });
    expect(Object.keys(await limitsByName(id))).toEqual(['one', 'two']);
    const reply = await updateIdentity({ identity: id, ratelimits: [] });
    expect(reply.status).toBe(200);
    expect(reply.body.data.ratelimits).toBeUndefined();
    expect(await identityRatelimits(api.em(), id)).toEqual([]);
  });

  it("never touches the rate limits of the identity's keys, even those with the same name", async () => {
    const id = await identityWithLimits('keyed_user', ['shared']);
    const { keyId } = await newKey({
      externalId: 'keyed_user',
      ratelimits: [{ name: 'shared', limit: 7, duration: 7000 }],
    });
    await updateIdentity({ identity: id, ratelimits: [{ name: 'shared', limit: 9, duration: 9000 }] });
    await updateIdentity({ identity: id, ratelimits: [] });
    expect(await keyRatelimits(api.em(), keyId)).toEqual([
      { name: 'shared', limit: 7, duration_ms: '7000', auto_apply: false },
    ]);
  });

  it('applies concurrent updates one after the other: the result is exactly one of them', async () => {
    const id = await identityWithLimits('raced_user', ['base']);
    const requests = Array.from({ length: 8 }, (_, i) => [
      { name: 'base', limit: 10 + i, duration: 1000 },
      { name: `only-${i}`, limit: 1, duration: 1000 },
    ]);
    const replies = await Promise.all(requests.map((ratelimits) => updateIdentity({ identity: id, ratelimits })));
    expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(200));
    const after = await limitsByName(id);
    const winner = Number(
      Object.keys(after)
        .find((name) => name.startsWith('only-'))
        ?.slice('only-'.length),
    );
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(Object.keys(after)).toEqual(['base', `only-${winner}`]);
    expect(after.base?.limit).toBe(10 + winner);
  });

  describe('verification sees the change at once (the cache is warm)', () => {
    it('an identity limit is shared by all its keys', async () => {
      await newIdentity({
        externalId: 'shared_limit_user',
        ratelimits: [{ name: 'team', limit: 3, duration: 60_000, autoApply: true }],
      });
      const first = await newKey({ externalId: 'shared_limit_user' });
      const second = await newKey({ externalId: 'shared_limit_user' });
      expect((await verify(first.key)).code).toBe('VALID');
      expect((await verify(second.key)).code).toBe('VALID');
      expect((await verify(first.key)).code).toBe('VALID');
      const denied = await verify(second.key);
      expect(denied.code).toBe('RATE_LIMITED');
      expect(denied.ratelimits).toEqual([expect.objectContaining({ name: 'team', limit: 3, exceeded: true })]);
      expect((await verify(first.key)).code).toBe('RATE_LIMITED');
      // A key of another identity is not limited by it.
      expect((await verify((await newKey({ externalId: 'unrelated_user' })).key)).code).toBe('VALID');
    });

    it('a limit given later by updateIdentity applies to every key at once', async () => {
      const id = await newIdentity({ externalId: 'late_limit_user' });
      const first = await newKey({ externalId: 'late_limit_user' });
      const second = await newKey({ externalId: 'late_limit_user' });
      for (const { key } of [first, first, second, second]) expect((await verify(key)).code).toBe('VALID');
      await updateIdentity({
        identity: id,
        ratelimits: [{ name: 'late', limit: 1, duration: 60_000, autoApply: true }],
      });
      expect((await verify(first.key)).code).toBe('VALID');
      expect((await verify(second.key)).code).toBe('RATE_LIMITED');
    });

    it('lowering the limit applies at once', async () => {
      const id = await newIdentity({ externalId: 'lowered_user', ratelimits: [requestsPerMinute(10)] });
      const { key } = await newKey({ externalId: 'lowered_user' });
      expect((await verify(key)).code).toBe('VALID');
      expect((await verify(key)).code).toBe('VALID');
      const reply = await updateIdentity({ identity: id, ratelimits: [requestsPerMinute(2)] });
      expect(reply.status).toBe(200);
      const denied = await verify(key);
      expect(denied.code).toBe('RATE_LIMITED');
      expect(denied.identity?.ratelimits).toEqual([expect.objectContaining({ name: 'requests', limit: 2 })]);
    });

    it('raising the limit applies at once', async () => {
      const id = await newIdentity({ externalId: 'raised_user', ratelimits: [requestsPerMinute(2)] });
      const { key } = await newKey({ externalId: 'raised_user' });
      expect((await verify(key)).code).toBe('VALID');
      expect((await verify(key)).code).toBe('VALID');
      expect((await verify(key)).code).toBe('RATE_LIMITED');
      await updateIdentity({ identity: id, ratelimits: [requestsPerMinute(10)] });
      expect((await verify(key)).code).toBe('VALID');
    });

    it('removing the limits lifts them at once', async () => {
      const id = await newIdentity({ externalId: 'lifted_user', ratelimits: [requestsPerMinute(1)] });
      const { key } = await newKey({ externalId: 'lifted_user' });
      expect((await verify(key)).code).toBe('VALID');
      expect((await verify(key)).code).toBe('RATE_LIMITED');
      await updateIdentity({ identity: id, ratelimits: [] });
      const allowed = await verify(key);
      expect(allowed.code).toBe('VALID');
      expect(allowed.identity).toEqual({ id, externalId: 'lifted_user' });
    });

    it('the new meta is what verification returns next', async () => {
      const id = await newIdentity({ externalId: 'meta_verified_user', meta: { version: 1 } });
      const { key } = await newKey({ externalId: 'meta_verified_user' });
      expect((await verify(key)).identity?.meta).toEqual({ version: 1 });
      expect((await verify(key)).identity?.meta).toEqual({ version: 1 });
      await updateIdentity({ identity: id, meta: { version: 2 } });
      expect((await verify(key)).identity?.meta).toEqual({ version: 2 });
      await updateIdentity({ identity: id, meta: null });
      expect((await verify(key)).identity).toEqual({ id, externalId: 'meta_verified_user' });
    });

    describe('on another node', () => {
      const nodeB = useSecondNode(api);

      it('as soon as the update returns, not when its cache expires (1 s)', async () => {
        const id = await newIdentity({ externalId: 'remote_user', meta: { version: 1 } });
        const { key } = await newKey({ externalId: 'remote_user' });
        const verifyOnB = async () => (await nodeB.call('keys.verifyKey', { key }, owner.workspace.rootKey)).body.data;
        expect((await verifyOnB()).identity?.meta).toEqual({ version: 1 });
        expect((await verifyOnB()).identity?.meta).toEqual({ version: 1 });
        await updateIdentity({ identity: id, meta: { version: 2 } });
        expect((await verifyOnB()).identity?.meta).toEqual({ version: 2 });
      });
    });
  });
});

describe('400', () => {
  let id: string;
  beforeAll(async () => {
    id = await newIdentity({
      externalId: 'invalid_target',
      meta: { kept: true },
      ratelimits: [{ name: 'kept', limit: 1, duration: 1000 }],
    });
  });
  const expectInvalid = async (body: Record<string, unknown> | JsonText, location: string) => {
    const before = await getIdentity(id);
    expectInvalidInput(await api.post('identities.updateIdentity', body, owner.workspace.rootKey), location);
    expect(await getIdentity(id)).toEqual(before);
  };

  it('requires identity', async () => {
    await expectInvalid({ meta: {} }, 'body.identity');
  });

  it.each([
    ['identity', ''],
    ['identity', 'x'.repeat(256)],
    ['meta', 'text'],
    ['meta', [1]],
    ['meta', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
    ['meta', { note: 'nul\u0000' }],
    ['ratelimits', null],
    ['ratelimits', { name: 'x' }],
    ['ratelimits', Array.from({ length: 51 }, (_, i) => ({ name: `limit-${i}`, limit: 1, duration: 1000 }))],
  ])('rejects %s = %j', async (field, value) => {
    await expectInvalid({ identity: id, [field]: value }, `body.${field}`);
  });

  it.each([101, 5000])('rejects meta nested %i levels deep', async (levels) => {
    await expectInvalid(withNestedMeta({ identity: id }, levels), 'body.meta');
  });

  it('rejects two rate limits with the same name, changing nothing', async () => {
    const limit = { name: 'same', limit: 1, duration: 1000 };
    await expectInvalid(
      { identity: id, meta: { changed: true }, ratelimits: [limit, limit] },
      'body.ratelimits[1].name',
    );
  });

  it.each([
    [{ name: 'ab', limit: 1, duration: 1000 }, 'body.ratelimits[0].name'],
    [{ name: 'abc', limit: 0, duration: 1000 }, 'body.ratelimits[0].limit'],
    [{ name: 'abc', limit: 1, duration: 999 }, 'body.ratelimits[0].duration'],
  ])('rejects the rate limit %j', async (limit, location) => {
    await expectInvalid({ identity: id, ratelimits: [limit] }, location);
  });

  it('rejects meta over 1 MB serialized (a server whose body limit lets it through)', async () => {
    const reply = await postOn(
      api,
      { maxBodyBytes: 4 * 1024 * 1024 },
      'identities.updateIdentity',
      { identity: id, meta: { blob: 'x'.repeat(1024 * 1024) } },
      owner.workspace.rootKey,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toContainEqual(
      expect.objectContaining({ location: 'body.meta', message: expect.stringMatching(/^Metadata is too large/) }),
    );
    expect((await getIdentity(id)).meta).toEqual({ kept: true });
  });

  it('rejects unknown fields, externalId included (an identity is not renamed)', async () => {
    await expectInvalid({ identity: id, externalId: 'renamed' }, 'body.externalId');
  });
});

describe('403', () => {
  it('without identity.*.update_identity, naming it, and changes nothing', async () => {
    const id = await newIdentity({ externalId: 'guarded_user', meta: { kept: true } });
    const { rootKey } = await owner.workspace.rootKeyWith(['identity.*.read_identity', 'identity.*.create_identity']);
    const reply = await updateIdentity({ identity: id, meta: { kept: false }, ratelimits: [] }, rootKey);
    expectMissingPermissions(reply, 'identity.*.update_identity');
    expect((await getIdentity(id)).meta).toEqual({ kept: true });
  });

  itNeedsTheIdentityPermissionFirst({
    action: 'update_identity',
    workspace: () => owner.workspace,
    create: () => newIdentity({ externalId: 'updatable_user' }),
    send: (identity, rootKey) => updateIdentity({ identity, meta: { ok: true } }, rootKey),
  });
});

describe('404', () => {
  it('for an identity that does not exist, creating none', async () => {
    const before = await countRows(api.em(), 'identities');
    await expectNoSuchIdentity((identity) =>
      updateIdentity({ identity, meta: { a: 1 }, ratelimits: [{ name: 'x-limit', limit: 1, duration: 1000 }] }),
    );
    expect(await countRows(api.em(), 'identities')).toBe(before);
  });

  it('for a deleted identity, changing nothing', async () => {
    const id = await newIdentity({ externalId: 'gone_user', ratelimits: [{ name: 'kept', limit: 1, duration: 1000 }] });
    await api.post('identities.deleteIdentity', { identity: id }, owner.workspace.rootKey);
    expect((await updateIdentity({ identity: id, ratelimits: [] })).status).toBe(404);
    expect((await updateIdentity({ identity: 'gone_user', ratelimits: [] })).status).toBe(404);
    expect(await identityRatelimits(api.em(), id)).toHaveLength(1);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot update another workspace's identity (404), which keeps limiting its keys", async () => {
    const id = await newIdentity({
      externalId: 'their_user',
      meta: { owner: 'me' },
      ratelimits: [requestsPerMinute(1)],
    });
    const { key } = await newKey({ externalId: 'their_user' });
    const intruder = await api.workspace();
    for (const identity of [id, 'their_user']) {
      const reply = await updateIdentity({ identity, meta: { owner: 'intruder' }, ratelimits: [] }, intruder.rootKey);
      expect(reply.status).toBe(404);
    }
    expect(await getIdentity(id)).toMatchObject({ meta: { owner: 'me' }, ratelimits: [{ name: 'requests' }] });
    expect((await verify(key)).code).toBe('VALID');
    expect((await verify(key)).code).toBe('RATE_LIMITED');
  });

  it('updates its own identity of the same externalId only', async () => {
    const other = await api.workspace();
    const mine = await newIdentity({ externalId: 'twin_user', meta: { owner: 'me' } });
    await newIdentity({ externalId: 'twin_user', meta: { owner: 'them' } }, other.rootKey);
    const reply = await updateIdentity({ identity: 'twin_user', meta: { owner: 'them, updated' } }, other.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).not.toBe(mine);
    expect((await getIdentity(mine)).meta).toEqual({ owner: 'me' });
  });
});
