import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.ts';
import { isRootKeyExpiryAllowed, type RootKeyExpiryChange, requireRootKeyExpiryAllowed } from './rootKeyExpiry.ts';

const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 24, 12);
const inAnHour = now + HOUR;

describe('isRootKeyExpiryAllowed', () => {
  it.each<[string, RootKeyExpiryChange]>([
    ['a caller without expiry removes an expiry', { caller: null, current: inAnHour, requested: null }],
    ['a caller without expiry creates a key without expiry', { caller: null, requested: null }],
    ['a caller shortens its own expiry', { caller: inAnHour, current: inAnHour, requested: now + HOUR / 2 }],
    ['a caller keeps its own expiry', { caller: inAnHour, current: inAnHour, requested: inAnHour }],
    ['a caller creates a key expiring with it', { caller: inAnHour, requested: inAnHour }],
    [
      'a caller revives an expired key within its own lifetime',
      { caller: inAnHour, current: now - HOUR, requested: now + HOUR / 2 },
    ],
    [
      'a caller shortens a longer-lived key, still beyond its own expiry',
      { caller: inAnHour, current: now + 3 * HOUR, requested: now + 2 * HOUR },
    ],
    ['a caller leaves a key without expiry as it is', { caller: inAnHour, current: null, requested: null }],
    [
      'a caller gives a key without expiry one later than its own',
      { caller: inAnHour, current: null, requested: now + 5 * HOUR },
    ],
  ])('allows: %s', (_, change) => {
    expect(isRootKeyExpiryAllowed(change)).toBe(true);
    expect(() => requireRootKeyExpiryAllowed(change)).not.toThrow();
  });

  it.each<[string, RootKeyExpiryChange]>([
    ['a caller removes its own expiry', { caller: inAnHour, current: inAnHour, requested: null }],
    ['a caller sets its own expiry later', { caller: inAnHour, current: inAnHour, requested: inAnHour + 1 }],
    ['a caller creates a key without expiry', { caller: inAnHour, requested: null }],
    ['a caller creates a key expiring after it', { caller: inAnHour, requested: inAnHour + 1 }],
    [
      'a caller revives an expired key beyond its own lifetime',
      { caller: inAnHour, current: now - HOUR, requested: null },
    ],
    [
      'a caller extends a longer-lived key further',
      { caller: inAnHour, current: now + 3 * HOUR, requested: now + 4 * HOUR },
    ],
  ])('refuses: %s', (_, change) => {
    expect(isRootKeyExpiryAllowed(change)).toBe(false);
    expect(() => requireRootKeyExpiryAllowed(change)).toThrow(DomainError);
  });
});

describe('requireRootKeyExpiryAllowed', () => {
  const refusal = (change: RootKeyExpiryChange) => {
    try {
      requireRootKeyExpiryAllowed(change);
    } catch (error) {
      return error as DomainError;
    }
    throw new Error('expected a refusal');
  };

  it("answers 403 with the caller's expiry as the latest allowed", () => {
    const error = refusal({ caller: inAnHour, current: inAnHour, requested: null });
    expect(error.status).toBe(403);
    expect(error.type).toBe('service/authorization/forbidden');
    expect(error.message).toBe(
      'This root key expires at 2026-11-24T13:00:00.000Z and cannot make a root key live longer than it will ' +
        `itself: \`expires\` must be ${inAnHour} (2026-11-24T13:00:00.000Z) or earlier.`,
    );
  });

  it("names the key's current expiry when that is later than the caller's", () => {
    const current = now + 3 * HOUR;
    const error = refusal({ caller: inAnHour, current, requested: null });
    expect(error.message).toContain(
      `\`expires\` must be ${current} (2026-11-24T15:00:00.000Z) or earlier, the key's current expiry.`,
    );
  });
});
