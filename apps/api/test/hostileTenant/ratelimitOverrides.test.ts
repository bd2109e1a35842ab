import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, expectVictimServed, useHostileTenancy } from './hostileTenant.ts';

// docs/contract.md#limits: wildcard overrides are matched in one pass over the identifier, a
// namespace holds at most LIMIT_RATELIMIT_WILDCARD_OVERRIDES of them (100 by default), and a call
// whose matching takes long lets other requests run between its turns.

const tenancy = useHostileTenancy();

const WILDCARD_LIMIT = 100;
const IDENTIFIER_LENGTH = 512;

/**
 * Two namespaces of the most wildcard overrides each may hold, in the shapes that cost most: the
 * report's (`*`, 255 × `a`, `b<i>`), which made backtracking read pattern × identifier characters
 * per match, and one whose literal run sits between two `*`, which a one-pass matcher must search
 * the whole identifier for.
 */
const SHAPES = {
  suffix: (index: number) => `*${'a'.repeat(255)}b${index}`,
  middle: (index: number) => `*${'a'.repeat(255)}*b${index}*`,
};

/** The largest multiLimit: 100 checks of 512-character identifiers that match no pattern. */
const largestMultiLimit = JSON.stringify(
  Array.from({ length: 100 }, (_, index) => ({
    namespace: index % 2 === 0 ? 'suffix' : 'middle',
    identifier: `${'a'.repeat(IDENTIFIER_LENGTH - 2)}${String(index).padStart(2, '0')}`,
    limit: 1_000_000,
    duration: 60_000,
  })),
);

/** The namespace's wildcard overrides, every page. */
async function patternsOf(namespace: string): Promise<string[]> {
  const patterns: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await tenancy.call('ratelimit.listOverrides', { namespace, limit: 100, cursor });
    expect(page.status).toBe(200);
    patterns.push(...page.body.data.map((override) => override.identifier).filter((id) => id.includes('*')));
    cursor = page.body.pagination.cursor;
  } while (cursor !== undefined);
  return patterns;
}

const setOverride = (namespace: string, identifier: string) =>
  tenancy.send('/v2/ratelimit.setOverride', { namespace, identifier, limit: 5, duration: 60_000 });

beforeAll(async () => {
  for (const [namespace, pattern] of Object.entries(SHAPES)) {
    const created = await tenancy.send('/v2/ratelimit.limit', {
      namespace,
      identifier: 'probe',
      limit: 1,
      duration: 1000,
      cost: 0,
    });
    expect(created.status).toBe(200);
    for (let index = 0; index < WILDCARD_LIMIT; index++) {
      expect((await setOverride(namespace, pattern(index))).status).toBe(200);
    }
  }
}, 120_000);

describe('the most wildcard overrides a namespace may hold', () => {
  it('refuses one more with 412 precondition_failed, storing nothing; exact overrides and changes still pass', async () => {
    const refused = await setOverride('middle', SHAPES.middle(WILDCARD_LIMIT));
    expect(refused.status).toBe(412);
    expect(refused.body).toMatchObject({
      error: {
        type: expect.stringMatching(/\/service\/application\/precondition_failed$/),
        detail: expect.stringContaining('at most 100 wildcard overrides'),
      },
    });
    expect(await patternsOf('middle')).toHaveLength(WILDCARD_LIMIT);
    expect((await setOverride('middle', 'an-exact-identifier')).status).toBe(200);
    expect((await setOverride('middle', SHAPES.middle(0))).status).toBe(200);
  });
});

describe('the largest multiLimit against them', () => {
  it('answers, and another workspace verifies within the bound meanwhile', async () => {
    const latencies = await tenancy.victimLatencies(
      () => tenancy.send('/v2/ratelimit.multiLimit', largestMultiLimit),
      (answer: Answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ data: { passed: true } });
      },
    );
    expectVictimServed(latencies);
  }, 60_000);
});
