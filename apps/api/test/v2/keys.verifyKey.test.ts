import { createHash } from 'node:crypto';
import { hashKey, PREFIXED_API_KEY_ALGORITHM } from '@keyplane/core';
import type { CreditSpender } from '@keyplane/db';
import { createKeyMigration, rows, sql } from '@keyplane/db';
import type { Services } from '@keyplane/procedures';
import { beforeAll, describe, expect, it } from 'vitest';
import { callOn, withServerOn } from '../appVariants.ts';
import { expectProblem } from '../assertions.ts';
import { addIdentityRatelimit, createRole, grantRolePermission, storedKey, verificationEvents } from '../dbInspect.ts';
import { useWorkspaceWithApi } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';
import { limiterWithoutRedis } from '../ratelimit.ts';

const api = useApi();
const owner = useWorkspaceWithApi(api);

const { newKey } = owner;
const verify = (body: InputOf<'keys.verifyKey'>, rootKey = owner.workspace.rootKey) =>
  api.call('keys.verifyKey', body, rootKey);
const verifyData = async (body: InputOf<'keys.verifyKey'>) => {
  const reply = await verify(body);
  expect(reply.status).toBe(200);
  return reply.body.data;
};

describe('200', () => {
  it('VALID with the key configuration', async () => {
    const { keyId, key } = await newKey({
      name: 'customer',
      meta: { plan: 'pro' },
      expires: 4102444800000,
      permissions: ['documents.read'],
      externalId: 'customer_1',
    });
    expect(await verifyData({ key })).toEqual({
      valid: true,
      code: 'VALID',
      keyId,
      name: 'customer',
      meta: { plan: 'pro' },
      expires: 4102444800000,
      enabled: true,
      permissions: ['documents.read'],
      identity: { id: expect.stringMatching(/^id_/), externalId: 'customer_1' },
    });
  });

  it('NOT_FOUND with nothing else for an unknown key', async () => {
    expect(await verifyData({ key: 'sk_doesnotexist' })).toEqual({ valid: false, code: 'NOT_FOUND' });
  });

  it('DISABLED for a disabled key', async () => {
    const { key } = await newKey({ enabled: false });
    expect(await verifyData({ key })).toMatchObject({ valid: false, code: 'DISABLED', enabled: false });
  });

  it('EXPIRED for a key past its expiry, judged by server time', async () => {
    const { key } = await newKey({ expires: Date.now() - 1000 });
    expect(await verifyData({ key })).toMatchObject({ valid: false, code: 'EXPIRED' });
  });

  it('still VALID at exactly the expiry instant, EXPIRED one millisecond later', async () => {
    const expires = Date.now() + 60_000;
    const { key } = await newKey({ expires });
    expect((await verifyAt(expires, { key })).code).toBe('VALID');
    expect((await verifyAt(expires + 1, { key })).code).toBe('EXPIRED');
  });

  it('answers permissions and roles from direct grants and roles', async () => {
    const roleId = await createRole(api.em(), owner.workspace.workspaceId, 'editor');
    await grantRolePermission(api.em(), owner.workspace.workspaceId, roleId, 'documents.write');
    const { key } = await newKey({ permissions: ['documents.read'], roles: ['editor'] });
    const data = await verifyData({ key, permissions: 'documents.read AND documents.write' });
    expect(data.code).toBe('VALID');
    expect(data.permissions?.sort()).toEqual(['documents.read', 'documents.write']);
    expect(data.roles).toEqual(['editor']);
  });

  it('records every verification with its outcome and tags', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 5 } });
    const tagged = await verify({ key, tags: ['path=/v1/things', 'region=eu'] });
    await verify({ key, credits: { cost: 10 } });
    await api.services.verifications.flush();
    expect(await verificationEvents(api.em(), keyId)).toEqual([
      {
        outcome: 'VALID',
        tags: ['path=/v1/things', 'region=eu'],
        spent_credits: '1',
        request_id: tagged.body.meta.requestId,
      },
      { outcome: 'USAGE_EXCEEDED', tags: [], spent_credits: '0', request_id: expect.any(String) },
    ]);
  });

  it("records an unknown key's NOT_FOUND against the API when the root key verifies on that one only", async () => {
    const { apiId, workspace } = owner;
    const { rootKey: single } = await workspace.rootKeyWith([`api.${apiId}.verify_key`]);
    const { rootKey: several } = await workspace.rootKeyWith([`api.${apiId}.verify_key`, 'api.api_other.verify_key']);
    const answered = await verify({ key: 'sk_unknown_to_one_api', tags: ['path=/one'] }, single);
    expect(answered.body.data).toEqual({ valid: false, code: 'NOT_FOUND' });
    // With several APIs (or all of them) the root key does not tell which one the key was meant for.
    await verify({ key: 'sk_unknown_to_several', tags: ['path=/several'] }, several);
    await verify({ key: 'sk_unknown_to_all', tags: ['path=/all'] });
    await api.services.verifications.flush();
    const recorded = await rows(
      api.em(),
      sql<{ api_id: string; outcome: string; tags: string[]; request_id: string }>`
        select api_id, outcome, tags, request_id from key_verifications
        where workspace_id = ${workspace.workspaceId} and key_id = '' order by id`,
    );
    expect(recorded).toEqual([
      { api_id: apiId, outcome: 'NOT_FOUND', tags: ['path=/one'], request_id: answered.body.meta.requestId },
    ]);
  });
});

describe('permissions query', () => {
  it.each([
    [['documents.read'], 'documents.read', 'VALID'],
    [['documents.read'], 'documents.write', 'INSUFFICIENT_PERMISSIONS'],
    [['a', 'c'], 'a AND (b OR c)', 'VALID'],
    [['a'], 'a AND (b OR c)', 'INSUFFICIENT_PERMISSIONS'],
    [['b'], 'a OR b AND c', 'INSUFFICIENT_PERMISSIONS'],
    [['a'], 'a or b and c', 'VALID'],
    [['documents.*'], 'documents.read', 'VALID'],
    [['documents.*'], 'documents.read.own AND documents.write', 'VALID'],
    [['documents.*'], 'billing.read', 'INSUFFICIENT_PERMISSIONS'],
    [['documents.read'], 'documents.*', 'INSUFFICIENT_PERMISSIONS'],
    [['documents.*'], 'documents.*', 'VALID'],
  ])('a key holding %j checked against %j is %s', async (permissions, query, code) => {
    const { key } = await newKey({ permissions });
    expect((await verifyData({ key, permissions: query })).code).toBe(code);
  });

  it('takes a query of the longest length nested as deep as it can be', async () => {
    const { key } = await newKey({ permissions: ['ab'] });
    const deepest = `${'('.repeat(499)}ab${')'.repeat(499)}`;
    expect(deepest).toHaveLength(1000);
    expect((await verifyData({ key, permissions: deepest })).code).toBe('VALID');
  });
});

describe('order of checks', () => {
  it('DISABLED before EXPIRED', async () => {
    const { key } = await newKey({ enabled: false, expires: 0 });
    expect((await verifyData({ key })).code).toBe('DISABLED');
  });

  it('EXPIRED before permissions', async () => {
    const { key } = await newKey({ expires: 0 });
    expect((await verifyData({ key, permissions: 'missing' })).code).toBe('EXPIRED');
  });

  it('permissions before rate limits and credits, consuming neither', async () => {
    const { key } = await newKey({
      credits: { remaining: 1 },
      ratelimits: [{ name: 'tight', limit: 1, duration: 60_000, autoApply: true }],
    });
    expect((await verifyData({ key, permissions: 'missing' })).code).toBe('INSUFFICIENT_PERMISSIONS');
    const valid = await verifyData({ key });
    expect(valid).toMatchObject({ code: 'VALID', credits: 0 });
  });

  it('rate limits before credits: a RATE_LIMITED answer spends no credits', async () => {
    const { key } = await newKey({
      credits: { remaining: 10 },
      ratelimits: [{ name: 'one', limit: 1, duration: 60_000, autoApply: true }],
    });
    expect(await verifyData({ key })).toMatchObject({ code: 'VALID', credits: 9 });
    expect(await verifyData({ key })).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await verifyData({ key, ratelimits: [{ name: 'one', cost: 0 }] })).toMatchObject({
      code: 'VALID',
      credits: 8,
    });
  });
});

describe('credits', () => {
  it('spends 1 by default and reports the balance after the spend', async () => {
    const { key } = await newKey({ credits: { remaining: 3 } });
    expect((await verifyData({ key })).credits).toBe(2);
    expect((await verifyData({ key, credits: { cost: 2 } })).credits).toBe(0);
    expect(await verifyData({ key })).toMatchObject({ valid: false, code: 'USAGE_EXCEEDED', credits: 0 });
  });

  it('cost 0 checks without spending, even at zero', async () => {
    const { key } = await newKey({ credits: { remaining: 0 } });
    expect(await verifyData({ key, credits: { cost: 0 } })).toMatchObject({ code: 'VALID', credits: 0 });
  });

  it('refuses a cost above the balance and spends nothing', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 5 } });
    expect(await verifyData({ key, credits: { cost: 6 } })).toMatchObject({ code: 'USAGE_EXCEEDED', credits: 5 });
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('5');
  });

  it('does not touch unlimited keys', async () => {
    const { key } = await newKey();
    const data = await verifyData({ key, credits: { cost: 1_000_000 } });
    expect(data.code).toBe('VALID');
    expect(data.credits).toBeUndefined();
  });

  it('gives exactly C valid answers to N > C parallel verifications, never going below zero', async () => {
    const { keyId, key } = await newKey({ credits: { remaining: 25 } });
    const answers = await Promise.all(Array.from({ length: 60 }, () => verifyData({ key })));
    expect(answers.filter((answer) => answer.valid)).toHaveLength(25);
    expect(answers.filter((answer) => answer.code === 'USAGE_EXCEEDED')).toHaveLength(35);
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('0');
  });

  // What each failed outcome needs: the key's own settings and the request.
  const failures: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['DISABLED', { enabled: false }, {}],
    ['EXPIRED', { expires: Date.now() - 1000 }, {}],
    ['INSUFFICIENT_PERMISSIONS', {}, { permissions: 'missing' }],
    ['RATE_LIMITED', {}, { ratelimits: [{ name: 'closed', limit: 0, duration: 60_000 }] }],
  ];

  it.each(failures)('%s shows the current balance and spends nothing', async (code, settings, request) => {
    const { keyId, key } = await newKey({ ...settings, credits: { remaining: 7 } });
    expect(await verifyData({ key, ...request, credits: { cost: 3 } })).toMatchObject({
      valid: false,
      code,
      credits: 7,
    });
    expect((await storedKey(api.em(), keyId))?.credits_remaining).toBe('7');
  });

  it.each(failures)('%s shows the balance with a due refill applied', async (code, settings, request) => {
    const { key } = await newKey({ ...settings, credits: { remaining: 2, refill: { interval: 'daily', amount: 5 } } });
    const nextMidnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000;
    expect(await verifyAt(nextMidnight - 1, { key, ...request })).toMatchObject({ code, credits: 2 });
    expect(await verifyAt(nextMidnight, { key, ...request })).toMatchObject({ code, credits: 5 });
  });

  it.each(failures)(
    '%s still answers, without credits, when the balance cannot be read',
    async (code, settings, request) => {
      const { key } = await newKey({ ...settings, credits: { remaining: 7 } });
      const unreachable: CreditSpender = {
        spend: () => Promise.reject(new Error('connection refused')),
        close: async () => {},
        poolUsage: () => ({ open: 0, idle: 0, waiting: 0, max: 0 }),
      };
      const reported: { message: string; requestId: string }[] = [];
      const data = await verifyOn(
        {
          credits: unreachable,
          reportError: (message, _error, requestId) => void reported.push({ message, requestId }),
        },
        { key, ...request },
      );
      expect(data).toMatchObject({ valid: false, code });
      expect(data).not.toHaveProperty('credits');
      // Logged with the request it happened in.
      expect(reported).toEqual([
        {
          message: 'could not read the credits of a key for a failed verification',
          requestId: expect.stringMatching(/^req_/),
        },
      ]);
    },
  );

  it.each(failures)('%s shows no credits for an unlimited key', async (code, settings, request) => {
    const { key } = await newKey(settings);
    const data = await verifyData({ key, ...request });
    expect(data.code).toBe(code);
    expect(data).not.toHaveProperty('credits');
  });

  it('refills daily at 00:00 UTC, even if no verification happened at that moment', async () => {
    const { key } = await newKey({ credits: { remaining: 1, refill: { interval: 'daily', amount: 5 } } });
    const now = Date.now();
    const nextMidnight = Math.ceil(now / 86_400_000) * 86_400_000;
    expect((await verifyAt(now, { key })).credits).toBe(0);
    expect((await verifyAt(nextMidnight - 1, { key })).code).toBe('USAGE_EXCEEDED');
    // Three days later: one refill to the amount (a refill sets, it does not add up).
    expect(await verifyAt(nextMidnight + 3 * 86_400_000, { key })).toMatchObject({ code: 'VALID', credits: 4 });
  });

  it('refills monthly on the refill day', async () => {
    const { key } = await newKey({
      credits: { remaining: 0, refill: { interval: 'monthly', amount: 10, refillDay: 1 } },
    });
    const now = new Date();
    const firstOfNextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect((await verifyAt(firstOfNextMonth - 1, { key })).code).toBe('USAGE_EXCEEDED');
    expect(await verifyAt(firstOfNextMonth, { key })).toMatchObject({ code: 'VALID', credits: 9 });
  });
});

describe('rate limits', () => {
  it('applies auto-applied key limits and reports them', async () => {
    const { key } = await newKey({ ratelimits: [{ name: 'burst', limit: 2, duration: 60_000, autoApply: true }] });
    const first = await verifyData({ key });
    expect(first.ratelimits).toEqual([
      expect.objectContaining({ name: 'burst', limit: 2, exceeded: false, remaining: 1, reset: expect.any(Number) }),
    ]);
    await verifyData({ key });
    const third = await verifyData({ key });
    expect(third).toMatchObject({ valid: false, code: 'RATE_LIMITED' });
    expect(third.ratelimits?.[0]).toMatchObject({ exceeded: true, remaining: 0 });
  });

  it('ignores limits that are not auto-applied unless requested by name, with a cost', async () => {
    const { key } = await newKey({ ratelimits: [{ name: 'quota', limit: 5, duration: 60_000 }] });
    expect((await verifyData({ key })).ratelimits).toBeUndefined();
    expect(await verifyData({ key, ratelimits: [{ name: 'quota', cost: 5 }] })).toMatchObject({ code: 'VALID' });
    expect(await verifyData({ key, ratelimits: [{ name: 'quota' }] })).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('checks ad-hoc limits with an empty id', async () => {
    const { key } = await newKey();
    const data = await verifyData({ key, ratelimits: [{ name: 'adhoc', limit: 1, duration: 60_000 }] });
    expect(data.ratelimits).toEqual([expect.objectContaining({ id: '', name: 'adhoc', exceeded: false })]);
    expect((await verifyData({ key, ratelimits: [{ name: 'adhoc', limit: 1, duration: 60_000 }] })).code).toBe(
      'RATE_LIMITED',
    );
  });

  it('counts an ad-hoc limit on the counter of the key limit with the same name and duration', async () => {
    const { key } = await newKey({ ratelimits: [{ name: 'quota', limit: 5, duration: 60_000 }] });
    expect(await verifyData({ key, ratelimits: [{ name: 'quota', cost: 3 }] })).toMatchObject({ code: 'VALID' });
    const adhoc = await verifyData({ key, ratelimits: [{ name: 'quota', limit: 10, duration: 60_000 }] });
    expect(adhoc.ratelimits).toEqual([expect.objectContaining({ id: '', name: 'quota', limit: 10, remaining: 6 })]);
    // Another duration is another counter.
    const longer = await verifyData({ key, ratelimits: [{ name: 'quota', limit: 10, duration: 120_000 }] });
    expect(longer.ratelimits?.[0]?.remaining).toBe(9);
  });

  it('shares identity limits across all of its keys, and a key limit of the same name hides it', async () => {
    const first = await newKey({ externalId: 'shared_identity' });
    const second = await newKey({ externalId: 'shared_identity' });
    const identityId = (await storedKey(api.em(), first.keyId))?.identity_id ?? '';
    await addIdentityRatelimit(api.em(), owner.workspace.workspaceId, identityId, {
      name: 'org',
      limit: 2,
      durationMs: 60_000,
      autoApply: true,
    });
    const own = await newKey({
      externalId: 'shared_identity',
      ratelimits: [{ name: 'org', limit: 100, duration: 60_000, autoApply: true }],
    });
    expect((await verifyData({ key: first.key })).code).toBe('VALID');
    expect((await verifyData({ key: second.key })).code).toBe('VALID');
    expect((await verifyData({ key: first.key })).code).toBe('RATE_LIMITED');
    expect((await verifyData({ key: second.key })).code).toBe('RATE_LIMITED');
    expect((await verifyData({ key: own.key })).code).toBe('VALID');
  });

  it("answers the identity's limits without those a key limit of the same name hides", async () => {
    const created = await api.call(
      'identities.createIdentity',
      {
        externalId: 'hidden_limits',
        ratelimits: [
          { name: 'org', limit: 2, duration: 60_000 },
          { name: 'daily', limit: 1000, duration: 86_400_000 },
        ],
      },
      owner.workspace.rootKey,
    );
    expect(created.status).toBe(200);
    const { keyId, key } = await newKey({
      externalId: 'hidden_limits',
      ratelimits: [{ name: 'org', limit: 100, duration: 60_000 }],
    });
    const { identity } = await verifyData({ key });
    expect(identity?.ratelimits).toEqual([expect.objectContaining({ name: 'daily', limit: 1000 })]);
    // keys.getKey shows the identity as it is.
    const stored = await api.call('keys.getKey', { keyId }, owner.workspace.rootKey);
    expect(stored.body.data.identity?.ratelimits?.map((limit) => limit.name).sort()).toEqual(['daily', 'org']);
  });

  it('is all-or-nothing across several limits: a rejected request consumes none of them', async () => {
    const { key } = await newKey({
      ratelimits: [
        { name: 'wide', limit: 3, duration: 60_000, autoApply: true },
        { name: 'narrow', limit: 5, duration: 60_000 },
      ],
    });
    expect((await verifyData({ key, ratelimits: [{ name: 'narrow', cost: 3 }] })).code).toBe('VALID');
    const rejected = await verifyData({ key, ratelimits: [{ name: 'narrow', cost: 3 }] });
    expect(rejected.code).toBe('RATE_LIMITED');
    // The refusing limit reports 0 though 2 are left; the other what it had, its cost not spent.
    expect(rejected.ratelimits?.find((limit) => limit.name === 'narrow')).toMatchObject({
      exceeded: true,
      remaining: 0,
    });
    expect(rejected.ratelimits?.find((limit) => limit.name === 'wide')).toMatchObject({
      exceeded: false,
      remaining: 2,
    });
    // `wide` was not consumed by the rejected request: two more fit.
    expect((await verifyData({ key })).code).toBe('VALID');
    expect((await verifyData({ key })).code).toBe('VALID');
    expect((await verifyData({ key })).code).toBe('RATE_LIMITED');
  });

  it('with RATELIMIT_REDIS_FAILURE=closed, refuses every key with a limit while Redis is unreachable, and only those', async () => {
    const rateLimiter = limiterWithoutRedis('closed');
    const verifyWithout = async (key: string) =>
      (await callOn(api, { rateLimiter }, 'keys.verifyKey', { key }, owner.workspace.rootKey)).body.data;
    const limited = await newKey({ ratelimits: [{ name: 'burst', limit: 10, duration: 60_000, autoApply: true }] });
    const unlimited = await newKey();

    const refused = await verifyWithout(limited.key);
    expect(refused).toMatchObject({ valid: false, code: 'RATE_LIMITED' });
    expect(refused.ratelimits?.[0]).toMatchObject({ name: 'burst', exceeded: true, remaining: 0 });
    expect(await verifyWithout(unlimited.key)).toMatchObject({ valid: true, code: 'VALID' });
  });
});

describe('400', () => {
  it('answers a permissions query syntax error with its position', async () => {
    const { key } = await newKey();
    const reply = await verify({ key, permissions: 'a AND (b OR c' });
    expectProblem(reply, 400, 'user/bad_request/permissions_query_syntax_error');
    expect(reply.body.error.detail).toMatch(/position 13/);
  });

  it('answers a syntax error in a query of the longest length at the greatest depth', async () => {
    const { key } = await newKey();
    const unclosed = `${'('.repeat(500)}a${')'.repeat(499)}`;
    expect(unclosed).toHaveLength(1000);
    const reply = await verify({ key, permissions: unclosed });
    expectProblem(reply, 400, 'user/bad_request/permissions_query_syntax_error');
    expect(reply.body.error.detail).toBe("Expected ')' at position 1000 but found end of query.");
  });

  it.each([
    ['key', ''],
    ['key', 'k'.repeat(513)],
    ['tags', Array.from({ length: 21 }, (_, i) => `t${i}`)],
    ['tags', ['']],
    // U+0000 cannot be stored: it must be refused here, not poison the batch its event is written in.
    ['tags', ['a\u0000b']],
    ['tags', ['lone \ud800 surrogate']],
    ['migrationId', 'mig\u0000'],
    ['permissions', ''],
    // The length bound is what bounds the parser's depth.
    ['permissions', `${'('.repeat(500)}a${')'.repeat(500)}`],
    ['credits', { cost: -1 }],
    ['credits', { cost: 1_000_000_000_001 }],
    ['ratelimits', [{ name: 'x', duration: 10 }]],
    ['ratelimits', [{ name: 'ab' }]],
    ['ratelimits', [{ name: 'ab', limit: 1, duration: 1000 }]],
    ['apiId', 'api_1'],
  ])('rejects %s = %j', async (field, value) => {
    const reply = await verify({ key: 'some_key', [field]: value });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors?.[0]?.location).toMatch(new RegExp(`^body\\.${field}`));
  });
});

describe('403', () => {
  it('for a root key without any verify permission, even for an unknown key', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.create_key']);
    const reply = await verify({ key: 'unknown' }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toContain('verify_key');
  });

  it('for a root key that may verify keys of another API only', async () => {
    const { key } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith(['api.api_other.verify_key']);
    expect((await verify({ key }, rootKey)).status).toBe(403);
  });

  it('not for a root key scoped to the key API', async () => {
    const { key } = await newKey();
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.verify_key`]);
    expect((await verify({ key }, rootKey)).body.data.code).toBe('VALID');
  });
});

describe('412', () => {
  it('for a requested limit that exists on neither the key nor its identity, in the reference wording', async () => {
    const { keyId, key } = await newKey({ externalId: 'ghost_owner' });
    const identityId = (await storedKey(api.em(), keyId))?.identity_id;
    const reply = await verify({ key, ratelimits: [{ name: 'ghost' }] });
    expectProblem(reply, 412, 'service/application/precondition_failed');
    expect(reply.body.error.detail).toBe(
      `ratelimit 'ghost' was requested but does not exist for key '${keyId}' nor identity: '${identityId}' external ID: 'ghost_owner'`,
    );
  });

  it('for a requested limit of a key without an identity, in the reference wording', async () => {
    const { keyId, key } = await newKey();
    const reply = await verify({ key, ratelimits: [{ name: 'ghost' }] });
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      `ratelimit 'ghost' was requested but does not exist for key '${keyId}' and there is no identity connected.`,
    );
  });
});

describe('cross-workspace isolation', () => {
  it("answers NOT_FOUND for another workspace's key", async () => {
    const { key } = await newKey();
    const other = await api.workspace();
    expect((await verify({ key }, other.rootKey)).body.data).toEqual({ valid: false, code: 'NOT_FOUND' });
  });
});

/** Verifies on an app whose clock reads `time`, sharing everything else with the test app. */
function verifyAt(time: number, body: InputOf<'keys.verifyKey'>) {
  return verifyOn({ now: () => time }, body);
}

/** A verification on a server whose services differ from the test app's in `changed`. */
async function verifyOn(changed: Partial<Services>, body: InputOf<'keys.verifyKey'>) {
  const reply = await withServerOn(api, { services: { ...api.services, ...changed } }, (server) =>
    server.call('keys.verifyKey', body, owner.workspace.rootKey),
  );
  expect(reply.status).toBe(200);
  return reply.body.data;
}

describe('migrationId: on-demand rehash of imported prefixed keys', () => {
  // The old system stored SHA-256 (hex) of the last part of `prefix_shortToken_longToken` only.
  const rawKey = 'acme_BRTRKFsL_51FwqftsmMDHHbJAMEXXHCgG';
  const oldSystemHash = createHash('sha256').update('51FwqftsmMDHHbJAMEXXHCgG').digest('hex');
  let migrationId: string;

  beforeAll(async () => {
    migrationId = await createKeyMigration(api.em(), owner.workspace.workspaceId, PREFIXED_API_KEY_ALGORITHM);
    const imported = await api.call(
      'keys.migrateKeys',
      { migrationId, apiId: owner.apiId, keys: [{ hash: oldSystemHash, name: 'imported' }] },
      owner.workspace.rootKey,
    );
    expect(imported.body.data.migrated).toHaveLength(1);
  });

  it('is NOT_FOUND without the migrationId, before the rehash', async () => {
    expect((await verifyData({ key: rawKey })).code).toBe('NOT_FOUND');
  });

  it('verifies with the migrationId, rehashing the key to the full-key hash', async () => {
    const data = await verifyData({ key: rawKey, migrationId });
    expect(data).toMatchObject({ valid: true, code: 'VALID', name: 'imported' });
    const stored = await storedKey(api.em(), data.keyId ?? '');
    expect(stored).toMatchObject({ hash: hashKey(rawKey), start: 'acme_BRTR' });
    // From now on it is an ordinary key.
    expect((await verifyData({ key: rawKey })).code).toBe('VALID');
  });

  it('rejects a key that cannot be of this migration as malformed', async () => {
    const reply = await verify({ key: 'only_two', migrationId });
    expectProblem(reply, 400, 'service/authentication/malformed');
    expect(reply.body.error.detail).toMatch(/^Invalid key format/);
    expect(reply.body.error.errors?.[0]?.location).toBe('body.key');
  });

  it('takes an empty migrationId as none: the key alone decides', async () => {
    const { key } = await newKey();
    expect(await verifyData({ key, migrationId: '' })).toMatchObject({ valid: true, code: 'VALID' });
    expect(await verifyData({ key: 'acme_AAAA_BBBB', migrationId: '' })).toEqual({ valid: false, code: 'NOT_FOUND' });
  });

  it("is NOT_FOUND for another workspace's migration", async () => {
    const other = await api.workspace();
    const reply = await verify({ key: 'acme_AAAA_BBBB', migrationId }, other.rootKey);
    expect(reply.body.data).toEqual({ valid: false, code: 'NOT_FOUND' });
  });
});
