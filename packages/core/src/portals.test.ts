import { describe, expect, it } from 'vitest';
import { hashKey } from './keys.ts';
import {
  isSafePortalUrl,
  newPortalSecret,
  PORTAL_SCOPE_ACTIONS,
  PORTAL_SCOPES,
  portalUsagePoints,
  scopeLackingRead,
} from './portals.ts';

describe('scopeLackingRead', () => {
  it('names the first scope that acts on keys without keys:read', () => {
    expect(scopeLackingRead(['keys:create', 'keys:delete', 'keys:update'])).toBe('keys:delete');
    expect(scopeLackingRead(['keys:reroll'])).toBe('keys:reroll');
  });

  it('lets creating and reading usage go without keys:read, and anything with it', () => {
    expect(scopeLackingRead(['keys:create', 'analytics:read'])).toBeUndefined();
    expect(scopeLackingRead([...PORTAL_SCOPES])).toBeUndefined();
  });
});

describe('PORTAL_SCOPE_ACTIONS', () => {
  it('asks of the opener, for every scope, an action of the api grammar', () => {
    expect(PORTAL_SCOPE_ACTIONS['keys:read']).toEqual(['read_key', 'read_api']);
    expect(PORTAL_SCOPE_ACTIONS['keys:reroll']).toEqual(['create_key']);
    expect(Object.keys(PORTAL_SCOPE_ACTIONS).sort()).toEqual([...PORTAL_SCOPES].sort());
  });
});

describe('isSafePortalUrl', () => {
  it.each([
    ['https://app.example.com/keys', false, true],
    ['http://app.example.com/keys', true, false],
    ['http://localhost:3000/keys', true, true],
    ['http://127.0.0.1/keys', true, true],
    ['http://[::1]:8080/', true, true],
    ['http://localhost:3000/keys', false, false],
    ['https://user:pass@app.example.com/', false, false],
    ['javascript:alert(1)', true, false],
    ['data:image/svg+xml,<svg/>', true, false],
    ['not a url', true, false],
  ])('%s (loopback allowed: %s) → %s', (url, allowLoopback, safe) => {
    expect(isSafePortalUrl(url, { allowLoopback })).toBe(safe);
  });
});

describe('newPortalSecret', () => {
  it('makes a code pst_… and an access token pat_…, each with the SHA-256 stored in its place', () => {
    const code = newPortalSecret('code');
    const token = newPortalSecret('accessToken');
    expect(code.token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(token.token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    expect(code.tokenHash).toBe(hashKey(code.token));
    expect(newPortalSecret('code').token).not.toBe(code.token);
  });
});

describe('portalUsagePoints', () => {
  const HOUR = 3_600_000;

  it('answers one zero-filled point per bucket starting in the range, oldest first', () => {
    const points = portalUsagePoints([], { from: HOUR / 2, to: 3 * HOUR, bucketMs: HOUR });
    expect(points.map((point) => point.time)).toEqual([HOUR, 2 * HOUR]);
    expect(points[0]).toEqual({
      time: HOUR,
      total: 0,
      valid: 0,
      rateLimited: 0,
      insufficientPermissions: 0,
      forbidden: 0,
      disabled: 0,
      expired: 0,
      usageExceeded: 0,
    });
  });

  it('counts each outcome in its field and every outcome, named or not, in total', () => {
    const [point] = portalUsagePoints(
      [
        { time: 0, outcome: 'VALID', count: 4 },
        { time: 0, outcome: 'VALID', count: 1 },
        { time: 0, outcome: 'RATE_LIMITED', count: 2 },
        { time: 0, outcome: 'INSUFFICIENT_PERMISSIONS', count: 3 },
        { time: 0, outcome: 'FORBIDDEN', count: 5 },
        { time: 0, outcome: 'DISABLED', count: 6 },
        { time: 0, outcome: 'EXPIRED', count: 7 },
        { time: 0, outcome: 'USAGE_EXCEEDED', count: 8 },
        { time: 0, outcome: 'NOT_FOUND', count: 10 },
        { time: 0, outcome: 'constructor', count: 100 },
        { time: HOUR, outcome: 'VALID', count: 1000 },
      ],
      { from: 0, to: HOUR, bucketMs: HOUR },
    );
    expect(point).toEqual({
      time: 0,
      total: 146,
      valid: 5,
      rateLimited: 2,
      insufficientPermissions: 3,
      forbidden: 5,
      disabled: 6,
      expired: 7,
      usageExceeded: 8,
    });
  });
});
