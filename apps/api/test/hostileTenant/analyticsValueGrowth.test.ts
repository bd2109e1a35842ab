import { describe, expect, it } from 'vitest';
import { answerTo, useTenants } from './tenants.ts';

// Queries that build huge values from a few short rows: strings doubled level after level, arrays
// of arrays, rows of rows, numbers of ever more digits, every row gathered into one array. A single
// such function call runs to its end whatever the statement timeout, holding its memory: each is
// refused before it runs, with a 400 naming the problem (docs/contract.md#analytics).

const tenants = useTenants();

/** WITH queries of `levels` levels, each concatenating the one before `width` times. */
function nestedConcat(levels: number, width: number, value: string): string {
  const ctes: string[] = [];
  let previous = value;
  let source = 'key_verifications_v1';
  for (let level = 0; level < levels; level++) {
    ctes.push(`l${level} as (select concat(${Array(width).fill(previous).join(',')}) s from ${source})`);
    previous = 's';
    source = `l${level}`;
  }
  return `with ${ctes.join(', ')} select length(s) from ${source}`;
}

const VALUE = /can build a value of up to .+; an analytics value may be at most 1 MiB/;
const DIGITS = /number of up to [\d,]+ digits; an analytics number may have at most 1,000\./;

const FAMILY: Array<[string, string, RegExp]> = [
  // Some 560 characters, as the query: gigabytes by the last level.
  ['concat nested in WITH queries', nestedConcat(9, 8, 'external_id'), VALUE],
  [
    '|| nested in derived tables',
    'select length(s || s) from (select s || s || s || s as s from (select s || s || s || s as s from (select tags || tags || tags || tags as s from key_verifications_v1) a) b) c',
    VALUE,
  ],
  [
    'concat of scalar subqueries',
    `with a as (select concat(${Array(8).fill('tags').join(',')}) s from key_verifications_v1 limit 1) select length(concat((select s from a), (select s from a), (select s from a), (select s from a)))`,
    VALUE,
  ],
  [
    'a LATERAL subquery',
    `select length(concat(${Array(8).fill('x.s').join(',')})) from key_verifications_v1 k, lateral (select concat(k.tags, k.tags, k.tags, k.tags) s) x`,
    VALUE,
  ],
  [
    'arrays of arrays',
    'with a as (select array[tags, tags, tags, tags, tags, tags, tags, tags] t from key_verifications_v1), b as (select array[t, t, t, t] t from a) select cardinality(array[t, t, t, t]) from b',
    VALUE,
  ],
  [
    'rows of rows',
    'with a as (select row(tags, tags, tags, tags, tags, tags, tags, tags) r from key_verifications_v1), b as (select row(r, r, r, r) r from a) select row(r, r, r, r) is null from b',
    VALUE,
  ],
  [
    'a to_char format built before',
    'with a as (select concat(tags, tags, tags, tags) f from key_verifications_v1) select to_char(now(), f) from a',
    VALUE,
  ],
  ['char(n) padding', "select length('x'::char(10485760))", VALUE],
  ['a huge exponent made into digits', 'select length((1e100000 + 1)::text)', DIGITS],
  [
    'text cast to numeric',
    'select external_id::numeric * external_id::numeric from key_verifications_v1',
    /Casting text to numeric here can make a number of up to 147,455 digits/,
  ],
  [
    'multiplications nested in WITH queries',
    'with a as (select sum(time)::numeric x from key_verifications_v1), b as (select x * x * x * x x from a), c as (select x * x * x * x x from b) select x * x from c',
    DIGITS,
  ],
  [
    'many values built for each row',
    `with a as (select concat(${Array(12).fill('tags').join(',')}) s from key_verifications_v1) select ${Array(70).fill('length(concat(s, s))').join(' + ')} from a`,
    /can build up to .+ of values for each row it reads; an analytics query may build at most 64 MiB per row/,
  ],
  [
    'ARRAY(SELECT …) of a cross join',
    'select cardinality(array(select 1 from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, key_verifications_v1 d, key_verifications_v1 e))',
    /ARRAY\(SELECT …\) is not allowed: it gathers every row of the subquery into one value/,
  ],
];

describe('a query whose values can grow past the limits', () => {
  it.each(FAMILY)('is refused before it runs: %s', async (_name, query, reason) => {
    const answer = await answerTo(tenants.server, 'analytics.getVerifications', query, tenants.attacker.rootKey);
    expect(answer.status, query).toBe(400);
    expect(answer.type).toMatch(/\/user\/bad_request\/invalid_analytics_query$/);
    expect(answer.detail).toMatch(reason);
  });

  it.each([
    ['repeat', "select length(repeat('x', 1000000000))"],
    ['lpad', "select length(lpad('x', 1000000000))"],
    ['string_agg', "select length(string_agg(key_id, ',')) from key_verifications_v1"],
    ['array_agg', 'select cardinality(array_agg(key_id)) from key_verifications_v1'],
    ['generate_series', 'select count(*) from generate_series(1, 20000000)'],
  ])('has no function that builds large values from small ones: %s', async (_name, query) => {
    const answer = await answerTo(tenants.server, 'analytics.getVerifications', query, tenants.attacker.rootKey);
    expect(answer.status).toBe(400);
    expect(answer.type).toMatch(/invalid_analytics_function$/);
  });
});
