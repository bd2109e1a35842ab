import { describe, expect, it } from 'vitest';
import { compileAnalyticsQuery } from './index.ts';
import { testOptions } from './testTables.ts';

/** The lower bounds on `time` the guard reports for a query, as the SQL that evaluates each. */
async function boundsOf(query: string): Promise<string[]> {
  const compiled = await compileAnalyticsQuery(query, testOptions());
  return compiled.timeBounds.map((bound) => bound.sql);
}

describe('lower bounds on time', () => {
  it.each([
    ['select * from key_verifications_v1 where time >= 1000', ['SELECT 1000']],
    ['select * from key_verifications_v1 where time > 1000', ['SELECT 1000']],
    ['select * from key_verifications_v1 where time = 1000', ['SELECT 1000']],
    ['select * from key_verifications_v1 where 1000 <= time', ['SELECT 1000']],
    ['select * from key_verifications_v1 v where v.time between 1000 and 2000', ['SELECT 1000']],
    ["select * from key_verifications_v1 where outcome = 'VALID' and (key_id = 'k' and time > 5)", ['SELECT 5']],
    [
      "select count(*) from key_verifications_v1 where time >= (extract(epoch from now() - interval '7 days') * 1000)::int8",
      [`SELECT CAST(EXTRACT(EPOCH FROM pg_catalog.now() - '7 days'::interval) * 1000 AS int8)`],
    ],
    [
      'with recent as (select * from key_verifications_v1 where time > 7) select * from recent where time >= 9',
      ['SELECT 9', 'SELECT 7'],
    ],
    ['select * from (select * from key_verifications_v1 where time > 3) s', ['SELECT 3']],
  ])('%s', async (query, expected) => {
    expect((await boundsOf(query)).sort()).toEqual([...expected].sort());
  });

  it.each([
    ["select * from key_verifications_v1 where time > 1000 or outcome = 'VALID'", 'under OR'],
    ['select * from key_verifications_v1 where not (time > 1000)', 'under NOT'],
    ['select * from key_verifications_v1 where time < 1000', 'an upper bound'],
    ['select * from key_verifications_v1 where time > length(key_id)', 'a bound that depends on the row'],
    [
      'select * from key_verifications_v1 where time > (select min(time) from key_verifications_v1)',
      'a bound from a subquery',
    ],
    ['select time > 1000 as recent from key_verifications_v1', 'a comparison outside WHERE'],
    ['select * from key_verifications_v1', 'no condition at all'],
  ])('none for %s (%s)', async (query) => {
    expect(await boundsOf(query)).toEqual([]);
  });

  it('points at the condition in the query', async () => {
    const query = 'select *\nfrom key_verifications_v1\nwhere time >= 1000';
    const compiled = await compileAnalyticsQuery(query, testOptions());
    expect(compiled.timeBounds[0]?.location).toBe(query.indexOf('>='));
  });
});
