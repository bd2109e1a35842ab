import { describe, expect, it } from 'vitest';
import {
  type CounterCheck,
  combineCounterChecks,
  compilePatternOverrides,
  findApplicableOverride,
  isWildcardPattern,
  matchesWildcard,
  planRatelimitCheck,
  type RatelimitNamespaceSnapshot,
  type RatelimitOverrideRule,
  ratelimitCounterKey,
  selectOverride,
} from './namespaceRatelimits.ts';

describe('matchesWildcard', () => {
  it.each([
    ['*', ''],
    ['*', 'anything at all'],
    ['user_*', 'user_'],
    ['user_*', 'user_123'],
    ['*_admin', 'team_admin'],
    ['a*b*c', 'abc'],
    ['a*b*c', 'a-x-b-y-c'],
    ['a*b*c', 'abcbc'],
    ['**', 'x'],
    ['exact', 'exact'],
    ['a.b+c?', 'a.b+c?'],
    ['*.example.com', 'api.example.com'],
    ['a*a*a*a*a*a*a*a*b', `${'a'.repeat(500)}b`],
  ])('%j matches %j', (pattern, identifier) => {
    expect(matchesWildcard(pattern, identifier)).toBe(true);
  });

  it.each([
    ['user_*', 'User_1'],
    ['user_*', 'xuser_1'],
    ['*_admin', 'team_admin_'],
    ['a*b*c', 'acb'],
    ['a*b*c', 'abcd'],
    ['exact', 'exac'],
    ['exact', 'exactly'],
    ['a.c', 'abc'],
    ['a?c', 'abc'],
    ['', 'x'],
  ])('%j does not match %j (anchored, case-sensitive, only * is special)', (pattern, identifier) => {
    expect(matchesWildcard(pattern, identifier)).toBe(false);
  });

  it.each([
    ['a*a', 'aa'],
    ['aab*', 'aab'],
    ['*aab', 'aaab'],
    ['*abab*c', 'abaababc'],
    ['a*ab*b', 'aabb'],
  ])('%j matches %j (runs that overlap what came before)', (pattern, identifier) => {
    expect(matchesWildcard(pattern, identifier)).toBe(true);
  });

  it.each([
    ['a*a', 'a'],
    ['ab*ba', 'aba'],
    ['*aab*aab', 'aaab'],
  ])('%j does not match %j (prefix and suffix may not share characters)', (pattern, identifier) => {
    expect(matchesWildcard(pattern, identifier)).toBe(false);
  });

  it('agrees with an anchored regular expression for random patterns and identifiers', () => {
    let seed = 11;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % below;
    };
    const text = (length: number, alphabet: string) =>
      Array.from({ length }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 5000; round += 1) {
      const pattern = text(random(9), 'ab*');
      const identifier = text(random(12), 'ab');
      const oracle = new RegExp(`^${pattern.replaceAll('*', '.*')}$`);
      expect(matchesWildcard(pattern, identifier), `${pattern} ~ ${identifier}`).toBe(oracle.test(identifier));
    }
  });

  it('stays fast on a pattern that makes a backtracking regex explode', () => {
    const pattern = `${'*a'.repeat(200)}*b`;
    const started = performance.now();
    expect(matchesWildcard(pattern, 'a'.repeat(512))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  // The bound of docs/contract.md#limits: one pass over the identifier per pattern. The case of
  // the report that stalled a node for 21 s (each match read pattern × identifier characters).
  it('matches 100 identifiers of 512 characters against 300 hostile patterns in well under a second', () => {
    const patterns = Array.from({ length: 300 }, (_, index) => rule(`rlor_${index}`, `*${'a'.repeat(255)}b${index}`));
    const identifiers = Array.from({ length: 100 }, (_, index) => `${'a'.repeat(511)}${index % 10}`);
    const started = performance.now();
    const matched = identifiers.filter((identifier) => selectOverride(patterns, identifier) !== undefined);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(matched).toEqual([]);
  });
});

describe('isWildcardPattern', () => {
  it('is any identifier with a *', () => {
    expect(isWildcardPattern('a*')).toBe(true);
    expect(isWildcardPattern('plain')).toBe(false);
  });
});

const rule = (id: string, identifier: string, limit = 1): RatelimitOverrideRule => ({
  id,
  identifier,
  limit,
  durationMs: 1000,
});

describe('selectOverride', () => {
  it('prefers the exact identifier over any wildcard, wherever it is in the list', () => {
    const overrides = [rule('rlor_1', 'user_*'), rule('rlor_2', '*'), rule('rlor_3', 'user_1')];
    expect(selectOverride(overrides, 'user_1')?.id).toBe('rlor_3');
  });

  it('applies a matching wildcard when there is no exact one', () => {
    expect(selectOverride([rule('rlor_1', 'other'), rule('rlor_2', 'user_*')], 'user_9')?.id).toBe('rlor_2');
  });

  it('ignores exact overrides of other identifiers and non-matching patterns', () => {
    expect(selectOverride([rule('rlor_1', 'user_2'), rule('rlor_2', 'team_*')], 'user_1')).toBeUndefined();
  });

  it('does not treat a plain identifier as a pattern', () => {
    expect(selectOverride([rule('rlor_1', 'user')], 'user_1')).toBeUndefined();
  });

  it('picks the most specific wildcard (most literal characters), whatever the order', () => {
    const overrides = [rule('rlor_1', '*'), rule('rlor_2', 'user_*_eu'), rule('rlor_3', 'user_*')];
    expect(selectOverride(overrides, 'user_1_eu')?.id).toBe('rlor_2');
    expect(selectOverride([...overrides].reverse(), 'user_1_eu')?.id).toBe('rlor_2');
    expect(selectOverride(overrides, 'user_1_us')?.id).toBe('rlor_3');
  });

  it('breaks a tie by the oldest override (lowest id), whatever the order', () => {
    const overrides = [rule('rlor_b', 'a*'), rule('rlor_a', '*z'), rule('rlor_c', 'a**')];
    expect(selectOverride(overrides, 'a-z')?.id).toBe('rlor_a');
    expect(selectOverride([...overrides].reverse(), 'a-z')?.id).toBe('rlor_a');
  });

  it('matches an identifier that contains * exactly before anything else', () => {
    const overrides = [rule('rlor_1', '*'), rule('rlor_2', 'a*')];
    expect(selectOverride(overrides, 'a*')?.id).toBe('rlor_2');
  });
});

describe('findApplicableOverride', () => {
  const namespace = (
    exactOverrides: number,
    patternOverrides: RatelimitOverrideRule[],
  ): RatelimitNamespaceSnapshot => ({
    workspaceId: 'ws_1',
    id: 'rlns_1',
    name: 'api',
    deleted: false,
    patternOverrides: compilePatternOverrides(patternOverrides),
    exactOverrides,
  });

  it('does not look up an exact override in a namespace that has none', async () => {
    const lookups: string[] = [];
    const found = await findApplicableOverride(namespace(0, [rule('rlor_1', 'user_*')]), 'user_1', async (_, id) => {
      lookups.push(id);
      return rule('rlor_2', id);
    });
    expect(found?.id).toBe('rlor_1');
    expect(lookups).toEqual([]);
  });

  it('prefers the exact override over every pattern', async () => {
    const found = await findApplicableOverride(
      namespace(1, [rule('rlor_1', 'user_*')]),
      'user_1',
      async (namespaceId, id) => (namespaceId === 'rlns_1' && id === 'user_1' ? rule('rlor_2', id) : undefined),
    );
    expect(found?.id).toBe('rlor_2');
  });

  it('falls back to the best pattern when the identifier has no exact override', async () => {
    const found = await findApplicableOverride(
      namespace(3, [rule('rlor_1', '*'), rule('rlor_2', 'user_*')]),
      'user_1',
      async () => undefined,
    );
    expect(found?.id).toBe('rlor_2');
  });

  it('answers at once, not as a promise, when the lookup answers at once or there is none to make', () => {
    const patterns = [rule('rlor_1', 'user_*')];
    expect(findApplicableOverride(namespace(0, patterns), 'user_1', async () => undefined)).toMatchObject({
      id: 'rlor_1',
    });
    expect(findApplicableOverride(namespace(1, patterns), 'user_1', (_, id) => rule('rlor_2', id))).toEqual(
      rule('rlor_2', 'user_1'),
    );
    expect(findApplicableOverride(namespace(1, patterns), 'user_1', () => undefined)).toMatchObject({ id: 'rlor_1' });
  });
});

describe('planRatelimitCheck', () => {
  const request = { limit: 10, durationMs: 60_000, cost: 2 };

  it('uses the request as it is without an override', () => {
    expect(planRatelimitCheck(request, undefined)).toEqual({ ...request, overrideId: undefined });
  });

  it("replaces the limit and duration with the override's, keeping the cost", () => {
    expect(planRatelimitCheck(request, { id: 'rlor_1', identifier: 'x', limit: 3, durationMs: 5000 })).toEqual({
      limit: 3,
      durationMs: 5000,
      cost: 2,
      overrideId: 'rlor_1',
    });
  });

  it('checks a blocking override (limit 0) at a cost of at least 1, so even a cost-0 check fails', () => {
    const block = { id: 'rlor_0', identifier: 'x', limit: 0, durationMs: 1000 };
    expect(planRatelimitCheck({ ...request, cost: 0 }, block)).toMatchObject({ limit: 0, cost: 1 });
    expect(planRatelimitCheck({ ...request, cost: 5 }, block)).toMatchObject({ limit: 0, cost: 5 });
  });

  it('keeps cost 0 (check without consuming) for every other limit', () => {
    expect(planRatelimitCheck({ ...request, cost: 0 }, undefined).cost).toBe(0);
  });
});

describe('ratelimitCounterKey', () => {
  it('is workspace, namespace id, identifier and duration', () => {
    expect(ratelimitCounterKey('ws_1', 'rlns_1', 'user:1', 60_000)).toBe('ws_1:ns:rlns_1:user:1:60000');
  });
});

/**
 * The engine's rule for one call, each check against its counter's effective (weighted) count:
 * counted only if all pass; a refusing check has 0 remaining, the others what they have left.
 */
function engineAnswers(checks: readonly CounterCheck[], effectiveOf: (key: string) => number) {
  const passes = checks.map((check) => effectiveOf(check.key) + check.cost <= check.limit);
  const counted = passes.every(Boolean);
  return checks.map((check, index) => {
    if (!passes[index]) return { passed: false, remaining: 0, reset: 1000 };
    const used = effectiveOf(check.key) + (counted ? check.cost : 0);
    return { passed: true, remaining: Math.floor(check.limit - used), reset: 1000 };
  });
}

describe('combineCounterChecks', () => {
  const check = (key: string, limit: number, cost = 1): CounterCheck => ({ key, limit, durationMs: 1000, cost });

  it('passes distinct counters through unchanged, in order', () => {
    const checks = [check('a', 5, 2), check('b', 3, 0)];
    const { requests, spread } = combineCounterChecks(checks);
    expect(requests).toEqual(checks);
    const outcomes = [
      { passed: true, remaining: 3, reset: 1 },
      { passed: false, remaining: 0, reset: 2 },
    ];
    expect(spread(outcomes)).toEqual(outcomes);
  });

  it('makes two checks of one counter at limit 1 one check of cost 2, which fails with nothing remaining', () => {
    const { requests, spread } = combineCounterChecks([check('a', 1), check('a', 1)]);
    expect(requests).toEqual([check('a', 1, 2)]);
    expect(spread(engineAnswers(requests, () => 0))).toEqual([
      { passed: false, remaining: 0, reset: 1000 },
      { passed: false, remaining: 0, reset: 1000 },
    ]);
  });

  it('reports, on success, what remains after each check in order', () => {
    const { requests, spread } = combineCounterChecks([check('a', 10, 3), check('b', 4), check('a', 10, 2)]);
    expect(requests).toEqual([check('a', 10, 5), check('b', 4)]);
    const answers = engineAnswers(requests, (key) => (key === 'a' ? 1 : 0));
    expect(spread(answers).map((outcome) => outcome.remaining)).toEqual([6, 3, 4]);
  });

  it('reports, when another counter refuses the call, what each check had before it', () => {
    const { requests, spread } = combineCounterChecks([check('a', 10, 3), check('b', 4, 5), check('a', 8, 2)]);
    expect(spread(engineAnswers(requests, (key) => (key === 'a' ? 1 : 0)))).toEqual([
      { passed: true, remaining: 9, reset: 1000 },
      { passed: false, remaining: 0, reset: 1000 },
      { passed: true, remaining: 7, reset: 1000 },
    ]);
  });

  it('never takes a negative limit to the engine', () => {
    const { requests } = combineCounterChecks([check('a', 1, 5), check('a', 0, 1)]);
    expect(requests[0]?.limit).toBe(0);
    expect(requests[0]?.cost).toBe(6);
  });

  it('agrees with checking one after the other, for random batches and counts', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      // The high bits: the low ones of this generator repeat with short periods.
      return Math.floor(seed / 65536) % below;
    };
    for (let round = 0; round < 2000; round += 1) {
      const checks = Array.from({ length: 1 + random(5) }, () =>
        check(['a', 'b'][random(2)] as string, random(8), random(4)),
      );
      const effective = { a: random(80) / 10, b: random(80) / 10 };
      const effectiveOf = (key: string) => (key === 'a' ? effective.a : effective.b);
      // The oracle: each check sees the counts of those before it on its counter.
      const used = new Map<string, number>();
      const sequential = checks.map((item) => {
        const before = effectiveOf(item.key) + (used.get(item.key) ?? 0);
        used.set(item.key, (used.get(item.key) ?? 0) + item.cost);
        const passed = before + item.cost <= item.limit;
        return { passed, remaining: passed ? Math.floor(item.limit - before - item.cost) : 0, reset: 1000 };
      });
      const allPass = sequential.every((outcome) => outcome.passed);
      const refusedCounters = new Set(checks.filter((_, index) => !sequential[index]?.passed).map((item) => item.key));

      const { requests, spread } = combineCounterChecks(checks);
      const answers = engineAnswers(requests, effectiveOf);
      expect(answers.every((answer) => answer.passed)).toBe(allPass);
      const spreadOut = spread(answers);
      checks.forEach((item, index) => {
        if (allPass) {
          expect(spreadOut[index]).toEqual(sequential[index]);
        } else if (refusedCounters.has(item.key)) {
          expect(spreadOut[index]).toEqual({ passed: false, remaining: 0, reset: 1000 });
        } else {
          // Nothing was counted: what the check had before the call.
          const before = Math.floor(item.limit - effectiveOf(item.key));
          expect(spreadOut[index]).toEqual({ passed: true, remaining: before, reset: 1000 });
        }
      });
    }
  });
});
