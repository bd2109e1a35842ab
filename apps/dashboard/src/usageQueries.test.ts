import { describe, expect, it } from 'vitest';
import { bucketStarts, differOnlyInStart, ratelimitsQuery, verificationsQuery } from './usageQueries.ts';

describe('bucketStarts', () => {
  it('ends with the bucket holding now, aligned to UTC', () => {
    const now = Date.UTC(2026, 10, 21, 13, 45, 10);
    const starts = bucketStarts('day', now);
    expect(starts).toHaveLength(24);
    expect(starts.at(-1)).toBe(Date.UTC(2026, 10, 21, 13));
    expect(starts[0]).toBe(Date.UTC(2026, 10, 20, 14));
  });
});

describe('verificationsQuery', () => {
  it('reads the rollup of the range and filters by the given ids', () => {
    expect(verificationsQuery('month', 1000, { apiId: 'api_1', identityId: 'id_2' })).toBe(
      'SELECT time, outcome, SUM(count) AS total, SUM(spent_credits) AS credits FROM key_verifications_per_day_v1 ' +
        "WHERE time >= 1000 AND api_id = 'api_1' AND identity_id = 'id_2' GROUP BY time, outcome ORDER BY time",
    );
  });

  it('refuses an id that could change the SQL', () => {
    expect(() => verificationsQuery('hour', 0, { keyId: "x' OR '1'='1" })).toThrow('Not a valid id');
  });
});

describe('ratelimitsQuery', () => {
  it('groups decisions by passed', () => {
    expect(ratelimitsQuery('hour', 5)).toContain('FROM ratelimits_per_minute_v1 WHERE time >= 5 GROUP BY time, passed');
  });

  it("reads one namespace's decisions when given its id", () => {
    expect(ratelimitsQuery('week', 5, 'rlns_1')).toContain(
      "FROM ratelimits_per_hour_v1 WHERE time >= 5 AND namespace_id = 'rlns_1' GROUP BY",
    );
  });
});

describe('differOnlyInStart', () => {
  it('tells a range moved on with the clock from another range or other filters', () => {
    const earlier = verificationsQuery('hour', 1000, { keyId: 'key_1' });
    expect(differOnlyInStart(earlier, verificationsQuery('hour', 61_000, { keyId: 'key_1' }))).toBe(true);
    expect(differOnlyInStart(earlier, verificationsQuery('day', 1000, { keyId: 'key_1' }))).toBe(false);
    expect(differOnlyInStart(earlier, verificationsQuery('hour', 1000, { keyId: 'key_2' }))).toBe(false);
  });
});
