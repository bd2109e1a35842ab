import { describe, expect, it } from 'vitest';
import { answerTo, useTenants } from './tenants.ts';

// A caller names things as it likes: a WITH query named like a table, view, schema or alias behind
// the public tables must not take its place, and no error may name what lies behind them (their
// tables, columns, schemas, the guard's own wrapping): the caller sees the public tables only.

const tenants = useTenants();

type Procedure = 'analytics.getVerifications' | 'analytics.getRatelimits';

/** Names of what stands behind the public tables, none of which a caller may learn. */
const INTERNAL_NAMES = [
  'keyplane_analytics',
  'keyplane_analytics_scoped',
  'ratelimit_decisions',
  'ratelimit_events',
  'latency_ms',
  'latency_sum',
  'further',
  'booland_statefunc',
  'current_setting',
  'pg_catalog',
  'security_barrier',
  // The aliases and parameters of what once stood in for the tables.
  'e.time',
  'r.time',
  'e.workspace_id',
  'r.workspace_id',
  '$1',
];

/** The internal names in an answer that the query did not name itself. */
function internalNamesIn(answer: unknown, query: string): string[] {
  const text = JSON.stringify(answer);
  return INTERNAL_NAMES.filter((name) => text.includes(name) && !query.includes(name));
}

const SHADOWS: Array<[Procedure, string, string]> = [
  ['analytics.getVerifications', 'key_verifications', 'select count(*) as n from key_verifications_v1'],
  ['analytics.getVerifications', 'key_verifications_per_day', 'select count(*) as n from key_verifications_per_day_v1'],
  ['analytics.getVerifications', 'e', 'select count(*) as n from key_verifications_v1'],
  ['analytics.getVerifications', 'r', 'select count(*) as n from key_verifications_per_hour_v1'],
  ['analytics.getVerifications', 'keyplane_analytics', 'select count(*) as n from key_verifications_v1'],
  ['analytics.getVerifications', 'keys', 'select count(*) as n from key_verifications_v1'],
  ['analytics.getRatelimits', 'ratelimit_events', 'select count(*) as n from ratelimits_v1'],
  ['analytics.getRatelimits', 'ratelimit_events_per_minute', 'select count(*) as n from ratelimits_per_minute_v1'],
  ['analytics.getRatelimits', 'ratelimit_decisions', 'select count(*) as n from ratelimits_v1'],
  ['analytics.getRatelimits', 'd', 'select count(*) as n from ratelimits_v1'],
];

describe('a WITH query named like something behind the public tables', () => {
  it.each(SHADOWS)('%s: %s changes nothing', async (procedure, name, query) => {
    const plain = await answerTo(tenants.server, procedure, query, tenants.attacker.rootKey);
    expect(plain.status).toBe(200);
    for (const columns of ['x', 'time, workspace_id, api_id, key_id, outcome']) {
      const shadowed = `with ${name} as (select 1 as ${columns.split(', ').join(', 1 as ')}) ${query}`;
      expect(await answerTo(tenants.server, procedure, shadowed, tenants.attacker.rootKey), shadowed).toEqual(plain);
    }
  });
});

describe('errors', () => {
  it.each<[Procedure, string]>([
    ['analytics.getVerifications', 'select count(*) from key_verifications_v1 where 1'],
    ['analytics.getVerifications', "select count(*) from key_verifications_v1 where key_id = 'k' and 'x'"],
    ['analytics.getVerifications', 'select count(*) from key_verifications_v1 a join key_verifications_v1 b on 1'],
    ['analytics.getVerifications', 'select key_id from key_verifications_v1 group by key_id having 1'],
    ['analytics.getVerifications', 'select k = 1 from key_verifications_v1 k'],
    ['analytics.getVerifications', 'select k.* + 1 from key_verifications_v1 k'],
    ['analytics.getVerifications', 'select e.time from key_verifications_v1'],
    ['analytics.getVerifications', 'select time from key_verifications_v1, key_verifications_per_day_v1'],
    ['analytics.getVerifications', 'select key_id, count(*) from key_verifications_v1'],
    ['analytics.getVerifications', "select count(*) from key_verifications_v1 where time = 'x'"],
    ['analytics.getVerifications', 'select tags + 1 from key_verifications_v1'],
    ['analytics.getVerifications', 'select count(*) from key_verifications_v1 where key_id::int = 1'],
    ['analytics.getVerifications', 'select * from key_verifications_v1 k where k = k.key_id'],
    ['analytics.getRatelimits', 'select d from ratelimits_v1 d where d = 1'],
    ['analytics.getRatelimits', 'select count(*) from ratelimits_v1 where identifier::int > 0'],
    ['analytics.getRatelimits', 'select further from ratelimits_v1'],
    ['analytics.getRatelimits', 'select latency_ms from ratelimits_v1'],
    ['analytics.getVerifications', 'with key_verifications as (select 1 as x) select x from key_verifications_v1'],
    [
      'analytics.getVerifications',
      'with key_verifications_per_day as (select 1 as x) select x from key_verifications_per_day_v1',
    ],
    ['analytics.getRatelimits', 'with ratelimit_events as (select 1 as x) select x from ratelimits_v1'],
  ])('%s: %s names nothing behind the public tables', async (procedure, query) => {
    await tenants.withVictimRows('other workspace', async () => {
      const answer = await answerTo(tenants.server, procedure, query, tenants.attacker.rootKey);
      expect(answer.status, JSON.stringify(answer)).toBe(400);
      expect(internalNamesIn(answer, query), answer.detail).toEqual([]);
    });
  });

  it('says which condition is not boolean in the words a caller knows', async () => {
    const answer = await answerTo(
      tenants.server,
      'analytics.getVerifications',
      'select count(*) from key_verifications_v1 where 1',
      tenants.attacker.rootKey,
    );
    expect(answer.detail).toBe(
      'The query failed: a condition (WHERE, HAVING or JOIN … ON) must be of type boolean, not integer.',
    );
  });
});
