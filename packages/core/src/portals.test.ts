import { describe, expect, it } from 'vitest';
import { hashKey } from './keys.ts';
import { isSafePortalUrl, newPortalSecret, PORTAL_SCOPE_ACTIONS, PORTAL_SCOPES, scopeLackingRead } from './portals.ts';

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
