import { describe, expect, it } from 'vitest';
import { postOn } from '../appVariants.ts';
import { invalidInputStoringNothing, itNeedsCreatePermission } from '../creates.ts';
import { countRows, identityRatelimits, storedIdentities, storedKey } from '../dbInspect.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, ERRORS_BASE_URL, withNestedMeta } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();

const createIdentity = (body: InputOf<'identities.createIdentity'>, rootKey = workspace.rootKey) =>
  api.call('identities.createIdentity', body, rootKey);

describe('200', () => {
  it('creates a live identity with its meta and answers its id', async () => {
    const reply = await createIdentity({ externalId: 'user_1', meta: { plan: 'pro', seats: { max: 3 } } });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['identityId']);
    expect(reply.body.data.identityId).toMatch(/^id_[0-9a-f]{32}$/);
    expect(await storedIdentities(api.em(), workspace.workspaceId, 'user_1')).toEqual([
      {
        id: reply.body.data.identityId,
        workspace_id: workspace.workspaceId,
        external_id: 'user_1',
        meta: { plan: 'pro', seats: { max: 3 } },
        deleted: false,
      },
    ]);
  });

  it('stores its rate limits on the identity, autoApply false when omitted', async () => {
    const reply = await createIdentity({
      externalId: 'user_limits',
      ratelimits: [
        { name: 'requests', limit: 10, duration: 1000, autoApply: true },
        { name: 'tokens', limit: 5000, duration: 60_000 },
      ],
    });
    expect(reply.status).toBe(200);
    const limits = await identityRatelimits(api.em(), reply.body.data.identityId);
    expect(limits.map(({ id, ...limit }) => limit)).toEqual([
      { name: 'requests', limit: 10, duration_ms: '1000', auto_apply: true },
      { name: 'tokens', limit: 5000, duration_ms: '60000', auto_apply: false },
    ]);
    expect(limits.every((limit) => limit.id.startsWith('rl_'))).toBe(true);
  });

  it('accepts the externalId edge cases of the pattern and length', async () => {
    for (const externalId of ['a', 'A.b-c_9', 'x'.repeat(255)]) {
      expect((await createIdentity({ externalId })).status).toBe(200);
    }
  });

  it('stores an empty meta as none', async () => {
    const reply = await createIdentity({ externalId: 'user_empty_meta', meta: {} });
    expect(reply.status).toBe(200);
    expect((await storedIdentities(api.em(), workspace.workspaceId, 'user_empty_meta'))[0]?.meta).toBeNull();
  });

  it('makes the externalId reusable as soon as the identity is deleted', async () => {
    const first = await createIdentity({ externalId: 'user_reused', meta: { generation: 1 } });
    expect((await createIdentity({ externalId: 'user_reused' })).status).toBe(409);
    const deleted = await api.post('identities.deleteIdentity', { identity: 'user_reused' }, workspace.rootKey);
    expect(deleted.status).toBe(200);

    const second = await createIdentity({ externalId: 'user_reused', meta: { generation: 2 } });
    expect(second.status).toBe(200);
    expect(second.body.data.identityId).not.toBe(first.body.data.identityId);
    expect(await storedIdentities(api.em(), workspace.workspaceId, 'user_reused')).toMatchObject([
      { id: first.body.data.identityId, deleted: true, meta: { generation: 1 } },
      { id: second.body.data.identityId, deleted: false, meta: { generation: 2 } },
    ]);
  });

  it('is the identity that keys created with its externalId are linked to', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { identityId } = (await createIdentity({ externalId: 'user_with_keys' })).body.data;
    const created = await api.call('keys.createKey', { apiId, externalId: 'user_with_keys' }, workspace.rootKey);
    expect((await storedKey(api.em(), created.body.data.keyId))?.identity_id).toBe(identityId);
  });
});

describe('400', () => {
  const identities = () => countRows(api.em(), 'identities');
  const expectInvalid = invalidInputStoringNothing(api, workspace, 'identities.createIdentity', identities);

  it('requires externalId', async () => {
    await expectInvalid({ meta: { a: 1 } }, 'body.externalId');
  });

  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(256)],
    ['with a space', 'has space'],
    ['with a slash', 'a/b'],
    ['of the wrong type', 42],
    ['null', null],
  ])('rejects an externalId %s', async (_, externalId) => {
    await expectInvalid({ externalId }, 'body.externalId');
  });

  it.each([
    ['a string', 'text'],
    ['an array', [1]],
    ['null', null],
    ['with 101 properties', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
    ['with U+0000', { note: 'nul\u0000' }],
  ])('rejects meta %s', async (_, meta) => {
    await expectInvalid({ externalId: 'bad_meta', meta }, 'body.meta');
  });

  it.each([101, 5000])('rejects meta nested %i levels deep, saying how deep it may be', async (levels) => {
    const reply = await expectInvalid(withNestedMeta({ externalId: 'deep_meta' }, levels), 'body.meta');
    expect(reply.body.error.detail).toContain('must not nest deeper than 100 levels');
  });

  it('rejects meta over 1 MB serialized, saying so (a server whose body limit lets it through)', async () => {
    const before = await identities();
    const reply = await postOn(
      api,
      { maxBodyBytes: 4 * 1024 * 1024 },
      'identities.createIdentity',
      { externalId: 'big_meta', meta: { blob: 'x'.repeat(1024 * 1024) } },
      workspace.rootKey,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors).toContainEqual(
      expect.objectContaining({ location: 'body.meta', message: expect.stringMatching(/^Metadata is too large/) }),
    );
    expect(await identities()).toBe(before);
  });

  it('accepts meta just under 1 MB on such a server', async () => {
    const reply = await postOn(
      api,
      { maxBodyBytes: 4 * 1024 * 1024 },
      'identities.createIdentity',
      { externalId: 'large_meta', meta: { blob: 'x'.repeat(1024 * 1024 - 20) } },
      workspace.rootKey,
    );
    expect(reply.status).toBe(200);
  });

  it('rejects more than 50 rate limits', async () => {
    const ratelimits = Array.from({ length: 51 }, (_, i) => ({ name: `limit-${i}`, limit: 1, duration: 1000 }));
    await expectInvalid({ externalId: 'many_limits', ratelimits }, 'body.ratelimits');
  });

  it('accepts exactly 50 rate limits', async () => {
    const ratelimits = Array.from({ length: 50 }, (_, i) => ({ name: `limit-${i}`, limit: 1, duration: 1000 }));
    const reply = await createIdentity({ externalId: 'fifty_limits', ratelimits });
    expect(reply.status).toBe(200);
    expect(await identityRatelimits(api.em(), reply.body.data.identityId)).toHaveLength(50);
  });

  it.each([
    [{ name: 'ab', limit: 1, duration: 1000 }, 'body.ratelimits[0].name'],
    [{ name: 'abc', limit: 0, duration: 1000 }, 'body.ratelimits[0].limit'],
    [{ name: 'abc', limit: 1, duration: 999 }, 'body.ratelimits[0].duration'],
    [{ name: 'abc', limit: 1, duration: 1000, autoApply: 'yes' }, 'body.ratelimits[0].autoApply'],
    [{ name: 'abc', limit: 1, duration: 1000, extra: 1 }, 'body.ratelimits[0].extra'],
  ])('rejects the rate limit %j', async (limit, location) => {
    await expectInvalid({ externalId: 'bad_limit', ratelimits: [limit] }, location);
  });

  it('rejects two rate limits with the same name', async () => {
    const limit = { name: 'same', limit: 1, duration: 1000 };
    await expectInvalid({ externalId: 'dup_limits', ratelimits: [limit, limit] }, 'body.ratelimits[1].name');
  });

  it('rejects unknown fields', async () => {
    await expectInvalid({ externalId: 'unknown_field', identityId: 'id_x' }, 'body.identityId');
  });
});

describe('403', () => {
  itNeedsCreatePermission(workspace, {
    permission: 'identity.*.create_identity',
    grantSets: [
      [],
      ['identity.*.read_identity', 'identity.*.update_identity'],
      ['identity.id_something.create_identity'],
    ],
    create: (rootKey) => createIdentity({ externalId: 'forbidden_user' }, rootKey),
    count: () => countRows(api.em(), 'identities'),
    unchanged: async () =>
      expect(await storedIdentities(api.em(), workspace.workspaceId, 'forbidden_user')).toEqual([]),
  });

  it('not with identity.*.create_identity alone', async () => {
    const { rootKey } = await workspace.rootKeyWith(['identity.*.create_identity']);
    expect((await createIdentity({ externalId: 'allowed_user' }, rootKey)).status).toBe(200);
  });
});

describe('409', () => {
  it('when a live identity has the externalId, leaving it as it was', async () => {
    const first = await createIdentity({
      externalId: 'taken',
      meta: { original: true },
      ratelimits: [{ name: 'original', limit: 1, duration: 1000 }],
    });
    const reply = await createIdentity({
      externalId: 'taken',
      meta: { original: false },
      ratelimits: [{ name: 'intruder', limit: 1, duration: 1000 }],
    });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatchObject({
      status: 409,
      type: `${ERRORS_BASE_URL}/service/data/identity_already_exists`,
      detail: "Identity with externalId 'taken' already exists in this workspace.",
    });
    expect(await storedIdentities(api.em(), workspace.workspaceId, 'taken')).toMatchObject([
      { id: first.body.data.identityId, meta: { original: true }, deleted: false },
    ]);
    expect((await identityRatelimits(api.em(), first.body.data.identityId)).map((limit) => limit.name)).toEqual([
      'original',
    ]);
  });

  it('when a key created the identity implicitly', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await api.post('keys.createKey', { apiId, externalId: 'implicit_user' }, workspace.rootKey);
    expect((await createIdentity({ externalId: 'implicit_user' })).status).toBe(409);
  });

  it('externalIds are case-sensitive: another letter case is another identity', async () => {
    expect((await createIdentity({ externalId: 'CaseUser' })).status).toBe(200);
    expect((await createIdentity({ externalId: 'caseuser' })).status).toBe(200);
  });

  it('for all but one of many concurrent creations, never a 500', async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createIdentity({ externalId: 'raced', ratelimits: [{ name: `racer-${i}`, limit: 1, duration: 1000 }] }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, ...Array(11).fill(409)]);
    const winner = replies.find((reply) => reply.status === 200);
    const stored = await storedIdentities(api.em(), workspace.workspaceId, 'raced');
    expect(stored.map((identity) => identity.id)).toEqual([winner?.body.data.identityId]);
    // The losers left no rate limits behind.
    const winnerIndex = replies.indexOf(winner as (typeof replies)[number]);
    expect((await identityRatelimits(api.em(), stored[0]?.id ?? '')).map((limit) => limit.name)).toEqual([
      `racer-${winnerIndex}`,
    ]);
  });
});

describe('cross-workspace isolation', () => {
  it('the same externalId in two workspaces is two identities, each invisible to the other', async () => {
    const other = await api.workspace();
    const mine = await createIdentity({ externalId: 'shared_name', meta: { owner: 'me' } });
    const theirs = await createIdentity({ externalId: 'shared_name', meta: { owner: 'them' } }, other.rootKey);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.identityId).not.toBe(mine.body.data.identityId);
    expect(await storedIdentities(api.em(), other.workspaceId, 'shared_name')).toMatchObject([
      { id: theirs.body.data.identityId, meta: { owner: 'them' } },
    ]);
    const seen = await api.post('identities.getIdentity', { identity: mine.body.data.identityId }, other.rootKey);
    expect(seen.status).toBe(404);
  });
});
