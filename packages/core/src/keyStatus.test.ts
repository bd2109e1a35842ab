import { describe, expect, it } from 'vitest';
import { hasLowCredits, keyStatus } from './keyStatus.ts';

const now = 1_700_000_000_000;
const live = { enabled: true, expires: null, remainingCredits: null };

describe('keyStatus', () => {
  it.each([
    [{}, 'enabled'],
    [{ expires: now + 1 }, 'enabled'],
    [{ expires: now }, 'enabled'],
    [{ expires: now - 1 }, 'expired'],
    [{ enabled: false }, 'disabled'],
    // Verification answers DISABLED before EXPIRED, and either before spending credits.
    [{ enabled: false, expires: now - 1, remainingCredits: 0 }, 'disabled'],
    [{ expires: now - 1, remainingCredits: 0 }, 'expired'],
    [{ remainingCredits: 0 }, 'out_of_credits'],
    [{ remainingCredits: 1 }, 'enabled'],
  ] as const)('%j is %s', (state, status) => {
    expect(keyStatus({ ...live, ...state }, now)).toBe(status);
  });
});

describe('hasLowCredits', () => {
  const limited = { ...live, refillAmount: null };
  it.each([
    [{ remainingCredits: null }, false],
    [{ remainingCredits: 10 }, true],
    [{ remainingCredits: 11 }, false],
    [{ remainingCredits: 100, refillAmount: 1000 }, true],
    [{ remainingCredits: 101, refillAmount: 1000 }, false],
    [{ remainingCredits: 1, refillAmount: 15 }, true],
    [{ remainingCredits: 2, refillAmount: 15 }, false],
    // Out of credits, disabled or expired is said by the status, never also as low.
    [{ remainingCredits: 0 }, false],
    [{ remainingCredits: 3, enabled: false }, false],
    [{ remainingCredits: 3, expires: now - 1 }, false],
  ] as const)('%j is %s', (state, low) => {
    expect(hasLowCredits({ ...limited, ...state }, now)).toBe(low);
  });
});
