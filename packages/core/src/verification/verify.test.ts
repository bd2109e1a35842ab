import { describe, expect, it } from 'vitest';
import { DomainError, forbidden } from '../errors.ts';
import { type KeyStatus, keyStatus } from '../keyStatus.ts';
import { PERMISSION_QUERY_SYNTAX_ERROR } from './permissionQuery.ts';
import { latestRefillBoundary } from './refill.ts';
import {
  identityRatelimitsOf,
  type KeyIdentity,
  type LimitCheck,
  type LimitOutcome,
  type RatelimitConfig,
  type VerificationCode,
  type VerificationKey,
  type VerifyOutcome,
  type VerifyPorts,
  type VerifyRequest,
  verifyKey,
} from './verify.ts';

const WORKSPACE = 'ws_home';
const API = 'api_home';
const HASH = 'hash_of_key_1';
// Far from the real clock, so a rule that read Date.now() instead of the `now` port would show.
const NOW = Date.UTC(2031, 3, 17, 13, 30);

/** What verification hands every port: passed through untouched, whatever it is. */
interface Call {
  readonly requestId: string;
}

type PortCall =
  | { port: 'findKey'; hash: string }
  | { port: 'authorize'; apiId: string }
  | { port: 'checkLimits'; checks: LimitCheck[]; hashTag: string }
  | { port: 'spendCredits'; keyId: string; cost: number; refillBoundary: number }
  | { port: 'readCredits'; keyId: string; refillBoundary: number };

/** The world the fake ports answer from; each test sets only what it is about. */
interface World {
  /** The one stored key, found under HASH. */
  key: VerificationKey | null;
  /** APIs whose keys the caller may verify. */
  verifiableApis: string[];
  /** The limiter's answer to each check; by default each passes with `limit - cost` left. */
  limitOutcome: (check: LimitCheck) => LimitOutcome;
  /** The key's balance as the credits port holds it; null: unlimited (now). */
  credits: number | null;
  /** Whether readCredits can read the balance. */
  creditsReadable: boolean;
  /** A cache hit answers at once; a miss answers a promise. */
  lookup: 'cached' | 'miss';
  now: number;
}

const passing = (check: LimitCheck): LimitOutcome => ({
  passed: true,
  remaining: check.limit - check.cost,
  reset: NOW + check.durationMs,
});

function liveKey(overrides: Partial<VerificationKey> = {}): VerificationKey {
  return {
    id: 'key_1',
    workspaceId: WORKSPACE,
    apiId: API,
    name: null,
    meta: null,
    expires: null,
    enabled: true,
    limitedCredits: false,
    refill: null,
    identity: null,
    ratelimits: [],
    permissions: [],
    roles: [],
    ...overrides,
  };
}

const limit = (name: string, overrides: Partial<RatelimitConfig> = {}): RatelimitConfig => ({
  id: `rl_${name}`,
  name,
  limit: 100,
  durationMs: 60_000,
  autoApply: true,
  ...overrides,
});

const identity = (ratelimits: RatelimitConfig[]): KeyIdentity => ({
  id: 'id_1',
  externalId: 'user_42',
  meta: null,
  ratelimits,
});

/**
 * Ports over an in-memory world. The credits port judges a spend as the database does (allowed when
 * the balance covers the cost, changing nothing otherwise); the limiter counts all-or-nothing.
 */
function fakePorts(world: World) {
  const calls: PortCall[] = [];
  const callArguments: Call[] = [];
  let balance = world.credits;
  const counted: LimitCheck[] = [];
  const ports: VerifyPorts<Call> = {
    findKey(call, hash) {
      callArguments.push(call);
      calls.push({ port: 'findKey', hash });
      const key = hash === HASH ? world.key : null;
      return world.lookup === 'miss' ? Promise.resolve(key) : key;
    },
    authorize(call, apiId) {
      callArguments.push(call);
      calls.push({ port: 'authorize', apiId });
      if (!world.verifiableApis.includes(apiId)) throw forbidden([`api.${apiId}.verify_key`]);
    },
    async checkLimits(call, checks, hashTag) {
      callArguments.push(call);
      calls.push({ port: 'checkLimits', checks, hashTag });
      const results = checks.map(world.limitOutcome);
      const passed = results.every((result) => result.passed);
      if (passed) counted.push(...checks);
      return { passed, results };
    },
    async spendCredits(call, keyId, cost, refillBoundary) {
      callArguments.push(call);
      calls.push({ port: 'spendCredits', keyId, cost, refillBoundary });
      if (balance === null) return { available: null, remaining: null };
      const available = balance;
      if (available < cost) return { available, remaining: null };
      balance = available - cost;
      return { available, remaining: balance };
    },
    async readCredits(call, keyId, refillBoundary) {
      callArguments.push(call);
      calls.push({ port: 'readCredits', keyId, refillBoundary });
      return world.creditsReadable && balance !== null ? balance : undefined;
    },
    now(call) {
      callArguments.push(call);
      return world.now;
    },
  };
  return {
    ports,
    calls,
    callArguments,
    counted,
    balance: () => balance,
    portsCalled: () => calls.map((call) => call.port),
  };
}

/** Fake ports over a world of one live, unlimited key the caller may verify, changed by `world`. */
const portsFor = (world: Partial<World>) =>
  fakePorts({
    key: liveKey(),
    verifiableApis: [API],
    limitOutcome: passing,
    credits: null,
    creditsReadable: true,
    lookup: 'cached',
    now: NOW,
    ...world,
  });

async function verify(
  world: Partial<World>,
  request: Partial<VerifyRequest> = {},
  call: Call = { requestId: 'req_1' },
) {
  const fake = portsFor(world);
  const outcome = await verifyKey({ hash: HASH, ...request }, WORKSPACE, fake.ports, call);
  return { outcome, ...fake };
}

/** The error a verification throws (a 4xx about the request itself, not an outcome). */
async function rejectionOf(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error instanceof DomainError) return error;
  throw new Error(`expected a DomainError, got ${String(error)}`);
}

const withKey = (outcome: VerifyOutcome) => {
  if (!outcome.key) throw new Error(`expected a found key, got ${outcome.code}`);
  return outcome;
};

describe('lookup', () => {
  it('answers NOT_FOUND and nothing else for an unknown hash, asking no other port', async () => {
    const { outcome, calls } = await verify({}, { hash: 'hash_of_nothing' });
    expect(outcome).toEqual({ code: 'NOT_FOUND' });
    expect(calls).toEqual([{ port: 'findKey', hash: 'hash_of_nothing' }]);
  });

  it("answers NOT_FOUND for another workspace's key without authorizing against its API", async () => {
    const key = liveKey({ workspaceId: 'ws_other', apiId: 'api_other' });
    const { outcome, portsCalled } = await verify({ key, verifiableApis: ['api_other'] });
    expect(outcome).toEqual({ code: 'NOT_FOUND' });
    expect(portsCalled()).toEqual(['findKey']);
  });

  it.each(['cached', 'miss'] as const)('verifies a key found %s alike', async (lookup) => {
    const key = liveKey();
    const { outcome } = await verify({ key, lookup });
    expect(outcome).toEqual({ code: 'VALID', key, spentCredits: 0, ratelimits: undefined });
  });

  it('answers the stored key itself, so the answer shows its name, meta, permissions and roles', async () => {
    const key = liveKey({ name: 'ci', meta: { plan: 'pro' }, permissions: ['a'], roles: ['r'] });
    expect((await verify({ key })).outcome.key).toBe(key);
  });

  it('hands every port the call it was given', async () => {
    const call = { requestId: 'req_hand_through' };
    const key = liveKey({ limitedCredits: true, ratelimits: [limit('requests')] });
    const { callArguments, portsCalled } = await verify({ key, credits: 5 }, {}, call);
    expect(portsCalled()).toEqual(['findKey', 'authorize', 'checkLimits', 'spendCredits']);
    expect(callArguments.length).toBeGreaterThanOrEqual(5);
    for (const received of callArguments) expect(received).toBe(call);
  });
});

/**
 * The order of checks (docs/contract.md#verification-order). Every scenario starts from a key that
 * verifies VALID, with a query it satisfies, an auto-applied limit that passes and a balance; each
 * failure below breaks exactly one of those, and any two together must answer the earlier one.
 */
interface Scenario {
  world: World;
  request: VerifyRequest;
}

type Expected = { code: VerificationCode } | { status: number; type: string };

interface Failure {
  name: string;
  apply: (scenario: Scenario) => void;
  expected: Expected;
}

const STARTING_BALANCE = 10;

function validScenario(): Scenario {
  return {
    world: {
      key: liveKey({
        limitedCredits: true,
        permissions: ['documents.read'],
        ratelimits: [limit('requests')],
      }),
      verifiableApis: [API],
      limitOutcome: passing,
      credits: STARTING_BALANCE,
      creditsReadable: true,
      lookup: 'cached',
      now: NOW,
    },
    request: { hash: HASH, permissions: 'documents.read' },
  };
}

function storedKey(scenario: Scenario): VerificationKey {
  if (!scenario.world.key) throw new Error('the scenario has no key');
  return scenario.world.key;
}

const FAILURES: Failure[] = [
  {
    name: "NOT_FOUND (another workspace's key)",
    apply: (s) => {
      storedKey(s).workspaceId = 'ws_other';
    },
    expected: { code: 'NOT_FOUND' },
  },
  {
    name: "403 (the caller may not verify the key's API)",
    apply: (s) => {
      s.world.verifiableApis = ['api_other'];
    },
    expected: { status: 403, type: 'service/authorization/forbidden' },
  },
  {
    name: '400 (the query does not parse)',
    apply: (s) => {
      s.request.permissions = 'documents.read AND';
    },
    expected: { status: 400, type: PERMISSION_QUERY_SYNTAX_ERROR },
  },
  {
    name: 'DISABLED',
    apply: (s) => {
      storedKey(s).enabled = false;
    },
    expected: { code: 'DISABLED' },
  },
  {
    name: 'EXPIRED',
    apply: (s) => {
      storedKey(s).expires = NOW - 1;
    },
    expected: { code: 'EXPIRED' },
  },
  {
    name: 'INSUFFICIENT_PERMISSIONS',
    apply: (s) => {
      storedKey(s).permissions = ['documents.write'];
    },
    expected: { code: 'INSUFFICIENT_PERMISSIONS' },
  },
  {
    name: '412 (a requested limit the key does not have)',
    apply: (s) => {
      s.request.ratelimits = [{ name: 'not_configured', cost: 1 }];
    },
    expected: { status: 412, type: 'service/application/precondition_failed' },
  },
  {
    name: 'RATE_LIMITED',
    apply: (s) => {
      s.world.limitOutcome = (check) => ({ passed: false, remaining: 0, reset: NOW + check.durationMs });
    },
    expected: { code: 'RATE_LIMITED' },
  },
  {
    name: 'USAGE_EXCEEDED',
    apply: (s) => {
      s.world.credits = 0;
    },
    expected: { code: 'USAGE_EXCEEDED' },
  },
];

const RATE_LIMITS_STEP = FAILURES.findIndex((failure) => failure.name.startsWith('412'));

/** Runs a scenario and checks its answer, and that a failure spent nothing and counted no limit early. */
async function expectAnswer(scenario: Scenario, expected: Expected, failureIndex: number) {
  const fake = fakePorts(scenario.world);
  const balanceBefore = scenario.world.credits;
  const running = verifyKey(scenario.request, WORKSPACE, fake.ports, { requestId: 'req_order' });
  if ('code' in expected) {
    expect((await running).code).toBe(expected.code);
  } else {
    const error = await rejectionOf(running);
    expect({ status: error.status, type: error.type }).toEqual(expected);
  }
  expect(fake.balance()).toBe(balanceBefore);
  if (failureIndex < RATE_LIMITS_STEP) expect(fake.portsCalled()).not.toContain('checkLimits');
  if (failureIndex <= RATE_LIMITS_STEP + 1) expect(fake.portsCalled()).not.toContain('spendCredits');
}

describe('verification order', () => {
  it('starts from a scenario that verifies VALID and spends', async () => {
    const scenario = validScenario();
    const { outcome, balance, counted } = await verify(scenario.world, scenario.request);
    expect(outcome.code).toBe('VALID');
    expect(balance()).toBe(STARTING_BALANCE - 1);
    expect(counted).toHaveLength(1);
  });

  it.each(FAILURES.map((failure, index) => [failure.name, index] as const))('%s alone', async (_name, index) => {
    const failure = FAILURES[index];
    if (!failure) throw new Error('no such failure');
    const scenario = validScenario();
    failure.apply(scenario);
    await expectAnswer(scenario, failure.expected, index);
  });

  const pairs = FAILURES.flatMap((earlier, i) =>
    FAILURES.slice(i + 1).map((later, offset) => [earlier.name, later.name, i, i + 1 + offset] as const),
  );

  it.each(pairs)('%s wins over %s', async (_earlier, _later, earlierIndex, laterIndex) => {
    const earlier = FAILURES[earlierIndex];
    const later = FAILURES[laterIndex];
    if (!earlier || !later) throw new Error('no such failure');
    const scenario = validScenario();
    later.apply(scenario);
    earlier.apply(scenario);
    await expectAnswer(scenario, earlier.expected, earlierIndex);
  });

  it('counts the request on its limits before refusing it for credits', async () => {
    const scenario = validScenario();
    scenario.world.credits = 0;
    const { outcome, counted, portsCalled } = await verify(scenario.world, scenario.request);
    expect(outcome.code).toBe('USAGE_EXCEEDED');
    expect(counted.map((check) => check.key)).toEqual([`${WORKSPACE}:key:key_1:requests:60000`]);
    expect(portsCalled()).toEqual(['findKey', 'authorize', 'checkLimits', 'spendCredits']);
  });

  it('still verifies a key at exactly its expiry, and not a millisecond after', async () => {
    expect((await verify({ key: liveKey({ expires: NOW }) })).outcome.code).toBe('VALID');
    expect((await verify({ key: liveKey({ expires: NOW }), now: NOW + 1 })).outcome.code).toBe('EXPIRED');
  });
});

describe('credits', () => {
  const limited = (overrides: Partial<VerificationKey> = {}) => liveKey({ limitedCredits: true, ...overrides });

  it('never touches the credits of an unlimited key, whatever the cost or outcome', async () => {
    const valid = await verify({ key: liveKey(), credits: 0 }, { creditCost: 5 });
    expect(valid.outcome).toEqual({ code: 'VALID', key: valid.outcome.key, spentCredits: 0, ratelimits: undefined });
    expect(valid.portsCalled()).toEqual(['findKey', 'authorize']);
    const disabled = await verify({ key: liveKey({ enabled: false }), credits: 3 });
    expect(withKey(disabled.outcome).credits).toBeUndefined();
    expect(disabled.portsCalled()).not.toContain('readCredits');
  });

  it('spends 1 by default and answers the balance after the spend', async () => {
    const { outcome, calls, balance } = await verify({ key: limited(), credits: 7 });
    expect(outcome).toMatchObject({ code: 'VALID', credits: 6, spentCredits: 1 });
    expect(calls.filter((call) => call.port === 'spendCredits')).toEqual([
      { port: 'spendCredits', keyId: 'key_1', cost: 1, refillBoundary: 0 },
    ]);
    expect(balance()).toBe(6);
  });

  it('spends exactly the requested cost, down to 0', async () => {
    const { outcome, balance } = await verify({ key: limited(), credits: 5 }, { creditCost: 5 });
    expect(outcome).toMatchObject({ code: 'VALID', credits: 0, spentCredits: 5 });
    expect(balance()).toBe(0);
  });

  it('refuses a cost above the balance with USAGE_EXCEEDED, showing the balance and spending nothing', async () => {
    const { outcome, balance, portsCalled } = await verify({ key: limited(), credits: 5 }, { creditCost: 6 });
    expect(outcome).toMatchObject({ code: 'USAGE_EXCEEDED', credits: 5, spentCredits: 0 });
    expect(balance()).toBe(5);
    // The spend's own answer gives the balance: no second read.
    expect(portsCalled()).not.toContain('readCredits');
  });

  it('passes a cost of 0 to the spend and is VALID even at a balance of 0', async () => {
    const { outcome, calls } = await verify({ key: limited(), credits: 0 }, { creditCost: 0 });
    expect(outcome).toMatchObject({ code: 'VALID', credits: 0, spentCredits: 0 });
    expect(calls.find((call) => call.port === 'spendCredits')).toMatchObject({ cost: 0 });
  });

  it('answers VALID without credits when the key turned unlimited after it was looked up', async () => {
    const { outcome } = await verify({ key: limited(), credits: null }, { creditCost: 3 });
    expect(outcome).toEqual({ code: 'VALID', key: outcome.key, spentCredits: 0, ratelimits: undefined });
  });

  it('reads, and does not spend, the balance of a limited key whose verification failed', async () => {
    const { outcome, calls } = await verify({ key: limited({ enabled: false }), credits: 4 });
    expect(outcome).toMatchObject({ code: 'DISABLED', credits: 4, spentCredits: 0 });
    expect(calls.filter((call) => call.port === 'readCredits' || call.port === 'spendCredits')).toEqual([
      { port: 'readCredits', keyId: 'key_1', refillBoundary: 0 },
    ]);
  });

  it('leaves credits out of a failed outcome when the balance cannot be read', async () => {
    const { outcome } = await verify({ key: limited({ enabled: false }), credits: 4, creditsReadable: false });
    expect(outcome.code).toBe('DISABLED');
    expect(outcome).not.toHaveProperty('credits');
  });

  it('reads the balance of a rate-limited key, and answers its limits', async () => {
    const refuse = (check: LimitCheck) => ({ passed: false, remaining: 0, reset: NOW + check.durationMs });
    const key = limited({ ratelimits: [limit('requests')] });
    const { outcome, portsCalled } = await verify({ key, credits: 9, limitOutcome: refuse });
    expect(outcome).toMatchObject({ code: 'RATE_LIMITED', credits: 9, spentCredits: 0 });
    expect(withKey(outcome).ratelimits).toHaveLength(1);
    expect(portsCalled()).toEqual(['findKey', 'authorize', 'checkLimits', 'readCredits']);
  });

  describe('the refill boundary handed to the credits port', () => {
    it.each([
      ['daily: midnight UTC today', { interval: 'daily', amount: 10, refillDay: null }, Date.UTC(2031, 3, 17)],
      ['monthly on the 10th: this month', { interval: 'monthly', amount: 10, refillDay: 10 }, Date.UTC(2031, 3, 10)],
      ['monthly on the 20th: last month', { interval: 'monthly', amount: 10, refillDay: 20 }, Date.UTC(2031, 2, 20)],
    ] as const)('%s', async (_case, refill, boundary) => {
      expect(latestRefillBoundary(refill, NOW)).toBe(boundary);
      const spent = await verify({ key: limited({ refill }), credits: 3 });
      expect(spent.calls.find((call) => call.port === 'spendCredits')).toMatchObject({ refillBoundary: boundary });
      const read = await verify({ key: limited({ refill, enabled: false }), credits: 3 });
      expect(read.calls.find((call) => call.port === 'readCredits')).toMatchObject({ refillBoundary: boundary });
    });

    it('is taken from the now port, month ends included', async () => {
      const refill = { interval: 'monthly', amount: 10, refillDay: 31 } as const;
      const { calls } = await verify({ key: limited({ refill }), credits: 3, now: Date.UTC(2031, 3, 30, 8) });
      expect(calls.find((call) => call.port === 'spendCredits')).toMatchObject({
        refillBoundary: Date.UTC(2031, 3, 30),
      });
    });
  });
});

describe('permissions query', () => {
  it('checks nothing when no query is sent, whatever the key holds', async () => {
    expect((await verify({ key: liveKey({ permissions: [] }) })).outcome.code).toBe('VALID');
  });

  it.each([
    ['documents.read', ['documents.*'], 'VALID'],
    ['documents.read AND billing.view', ['documents.*'], 'INSUFFICIENT_PERMISSIONS'],
    ['documents.read AND (billing.view OR admin)', ['documents.read', 'admin'], 'VALID'],
    ['documents.*', ['documents.read'], 'INSUFFICIENT_PERMISSIONS'],
    ['anything.at.all', ['*'], 'VALID'],
  ] as const)('%j for a key holding %j is %s', async (query, permissions, code) => {
    const { outcome } = await verify({ key: liveKey({ permissions: [...permissions] }) }, { permissions: query });
    expect(outcome.code).toBe(code);
  });

  it("judges the key's permissions, not the names of its roles", async () => {
    const key = liveKey({ roles: ['admin'], permissions: ['documents.read'] });
    expect((await verify({ key }, { permissions: 'admin' })).outcome.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it("rejects a malformed query with the parser's positioned 400 on body.permissions", async () => {
    const error = await rejectionOf(verify({ key: liveKey({ permissions: ['a'] }) }, { permissions: 'a b' }));
    expect(error.status).toBe(400);
    expect(error.type).toBe(PERMISSION_QUERY_SYNTAX_ERROR);
    expect(error.fieldErrors).toEqual([
      { location: 'body.permissions', message: "Expected 'AND' or 'OR' at position 2 but found 'b'." },
    ]);
  });
});

describe('rate limits', () => {
  const checksOf = (calls: PortCall[]) => calls.flatMap((call) => (call.port === 'checkLimits' ? call.checks : []));

  it('asks the limiter nothing when neither the key nor its identity has a limit and none is requested', async () => {
    const { outcome, portsCalled } = await verify({ key: liveKey({ identity: identity([]) }) });
    expect(withKey(outcome).ratelimits).toBeUndefined();
    expect(portsCalled()).not.toContain('checkLimits');
  });

  it('checks auto-applied limits of the key and its identity at cost 1, tagged with the workspace', async () => {
    const key = liveKey({
      ratelimits: [limit('per_key', { limit: 5, durationMs: 1000 }), limit('manual', { autoApply: false })],
      identity: identity([limit('shared', { limit: 50, durationMs: 3_600_000 })]),
    });
    const { calls } = await verify({ key });
    expect(calls.filter((call) => call.port === 'checkLimits')).toEqual([
      {
        port: 'checkLimits',
        hashTag: WORKSPACE,
        checks: [
          { key: `${WORKSPACE}:identity:id_1:shared:3600000`, limit: 50, durationMs: 3_600_000, cost: 1 },
          { key: `${WORKSPACE}:key:key_1:per_key:1000`, limit: 5, durationMs: 1000, cost: 1 },
        ],
      },
    ]);
  });

  it('lets a key limit hide an identity limit of the same name, even one the key does not auto-apply', async () => {
    const key = liveKey({
      ratelimits: [limit('requests', { autoApply: false, limit: 3 })],
      identity: identity([limit('requests', { limit: 1000 }), limit('other')]),
    });
    expect(identityRatelimitsOf(key)).toEqual([limit('other')]);
    const { calls } = await verify({ key });
    expect(checksOf(calls).map((check) => check.key)).toEqual([`${WORKSPACE}:identity:id_1:other:60000`]);
  });

  it("checks a requested name both have against the key's own limit, on the key's counter", async () => {
    const key = liveKey({
      ratelimits: [limit('requests', { autoApply: false, limit: 3 })],
      identity: identity([limit('requests', { autoApply: false, limit: 1000 })]),
    });
    const { calls } = await verify({ key }, { ratelimits: [{ name: 'requests', cost: 2 }] });
    expect(checksOf(calls)).toEqual([
      { key: `${WORKSPACE}:key:key_1:requests:60000`, limit: 3, durationMs: 60_000, cost: 2 },
    ]);
  });

  it('answers every identity limit when the key has none to hide them', () => {
    const limits = [limit('a'), limit('b', { autoApply: false })];
    expect(identityRatelimitsOf(liveKey({ identity: identity(limits) }))).toEqual(limits);
    expect(identityRatelimitsOf(liveKey({ ratelimits: [limit('a')] }))).toEqual([]);
  });

  it('replaces an auto-applied limit by a requested one of the same name, at the requested cost', async () => {
    const key = liveKey({ ratelimits: [limit('requests'), limit('tokens', { autoApply: false, limit: 1000 })] });
    const { calls } = await verify(
      { key },
      {
        ratelimits: [
          { name: 'requests', cost: 4 },
          { name: 'tokens', cost: 250 },
        ],
      },
    );
    expect(checksOf(calls)).toEqual([
      { key: `${WORKSPACE}:key:key_1:requests:60000`, limit: 100, durationMs: 60_000, cost: 4 },
      { key: `${WORKSPACE}:key:key_1:tokens:60000`, limit: 1000, durationMs: 60_000, cost: 250 },
    ]);
  });

  it("checks a requested limit only the identity has on the identity's shared counter", async () => {
    const key = liveKey({ identity: identity([limit('shared', { autoApply: false })]) });
    const { calls } = await verify({ key }, { ratelimits: [{ name: 'shared', cost: 2 }] });
    expect(checksOf(calls)).toEqual([
      { key: `${WORKSPACE}:identity:id_1:shared:60000`, limit: 100, durationMs: 60_000, cost: 2 },
    ]);
  });

  it("counts an ad-hoc limit (limit and duration) on the key's own counter, replacing an auto-applied one", async () => {
    const key = liveKey({
      ratelimits: [limit('burst', { limit: 10, durationMs: 1000 })],
      identity: identity([limit('burst_identity')]),
    });
    const { calls, outcome } = await verify(
      { key },
      { ratelimits: [{ name: 'burst', cost: 1, limit: 3, duration: 1000 }] },
    );
    // Same name and duration as the key's limit: the same counter, judged against the ad-hoc limit.
    expect(checksOf(calls)).toEqual([
      { key: `${WORKSPACE}:identity:id_1:burst_identity:60000`, limit: 100, durationMs: 60_000, cost: 1 },
      { key: `${WORKSPACE}:key:key_1:burst:1000`, limit: 3, durationMs: 1000, cost: 1 },
    ]);
    expect(withKey(outcome).ratelimits?.[1]).toMatchObject({ id: '', name: 'burst', autoApply: false, limit: 3 });
  });

  it('needs both limit and duration for an ad-hoc limit: either alone names a configured one', async () => {
    for (const partial of [{ limit: 3 }, { duration: 1000 }]) {
      const error = await rejectionOf(
        verify({ key: liveKey() }, { ratelimits: [{ name: 'adhoc', cost: 1, ...partial }] }),
      );
      expect(error.status).toBe(412);
    }
  });

  it.each([
    [
      'without an identity',
      null,
      "ratelimit 'missing' was requested but does not exist for key 'key_1' and there is no identity connected.",
    ],
    [
      'with an identity',
      identity([limit('other')]),
      "ratelimit 'missing' was requested but does not exist for key 'key_1' nor identity: 'id_1' external ID: 'user_42'",
    ],
  ])('words an unknown requested limit %s as the reference does, counting nothing', async (_case, owner, detail) => {
    const fake = portsFor({ key: liveKey({ identity: owner, ratelimits: [limit('requests')] }) });
    const request = { hash: HASH, ratelimits: [{ name: 'missing', cost: 1 }] };
    const error = await rejectionOf(verifyKey(request, WORKSPACE, fake.ports, { requestId: 'req_412' }));
    expect({ status: error.status, type: error.type, message: error.message }).toEqual({
      status: 412,
      type: 'service/application/precondition_failed',
      message: detail,
    });
    expect(fake.portsCalled()).toEqual(['findKey', 'authorize']);
  });

  it("answers each checked limit with its configuration and the limiter's outcome, in order", async () => {
    const key = liveKey({
      ratelimits: [limit('fast', { limit: 2, durationMs: 1000 }), limit('slow', { limit: 9, durationMs: 86_400_000 })],
    });
    const limitOutcome = (check: LimitCheck): LimitOutcome =>
      check.key.includes(':fast:')
        ? { passed: false, remaining: 0, reset: 111 }
        : { passed: true, remaining: 8, reset: 222 };
    const { outcome, counted } = await verify({ key, limitOutcome });
    expect(outcome.code).toBe('RATE_LIMITED');
    expect(withKey(outcome).ratelimits).toEqual([
      {
        id: 'rl_fast',
        name: 'fast',
        limit: 2,
        duration: 1000,
        autoApply: true,
        exceeded: true,
        remaining: 0,
        reset: 111,
      },
      {
        id: 'rl_slow',
        name: 'slow',
        limit: 9,
        duration: 86_400_000,
        autoApply: true,
        exceeded: false,
        remaining: 8,
        reset: 222,
      },
    ]);
    expect(counted).toEqual([]);
  });

  it('answers the limits it checked on a VALID outcome too', async () => {
    const { outcome } = await verify({ key: liveKey({ ratelimits: [limit('requests')] }) });
    expect(outcome.code).toBe('VALID');
    expect(withKey(outcome).ratelimits).toEqual([
      {
        id: 'rl_requests',
        name: 'requests',
        limit: 100,
        duration: 60_000,
        autoApply: true,
        exceeded: false,
        remaining: 99,
        reset: NOW + 60_000,
      },
    ]);
  });

  it('reads a limit the limiter gave no result for as exceeded, resetting now', async () => {
    const key = liveKey({ ratelimits: [limit('requests'), limit('unanswered')] });
    const fake = portsFor({ key });
    fake.ports.checkLimits = async () => ({ passed: false, results: [{ passed: true, remaining: 5, reset: 9 }] });
    const outcome = withKey(await verifyKey({ hash: HASH }, WORKSPACE, fake.ports, { requestId: 'req_short' }));
    expect(outcome.code).toBe('RATE_LIMITED');
    expect(outcome.ratelimits?.[1]).toMatchObject({ name: 'unanswered', exceeded: true, remaining: 0, reset: NOW });
  });
});

describe('keyStatus agrees with verification', () => {
  // keyStatus promises what the next plain verification (cost 1) answers.
  const codeOf: Record<KeyStatus, VerificationCode> = {
    disabled: 'DISABLED',
    expired: 'EXPIRED',
    out_of_credits: 'USAGE_EXCEEDED',
    enabled: 'VALID',
  };

  it.each([
    { enabled: true, expires: null, remainingCredits: null },
    { enabled: true, expires: NOW, remainingCredits: 1 },
    { enabled: true, expires: null, remainingCredits: 0 },
    { enabled: true, expires: NOW - 1, remainingCredits: 0 },
    { enabled: false, expires: NOW - 1, remainingCredits: 0 },
    { enabled: false, expires: null, remainingCredits: 5 },
    { enabled: true, expires: NOW + 1, remainingCredits: 2 },
  ])('%j', async (state) => {
    const key = liveKey({
      enabled: state.enabled,
      expires: state.expires,
      limitedCredits: state.remainingCredits !== null,
    });
    const { outcome } = await verify({ key, credits: state.remainingCredits });
    expect(outcome.code).toBe(codeOf[keyStatus(state, NOW)]);
  });
});
