import { describe, expect, it } from 'vitest';
import { keyStatus } from './keyStatus.ts';

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
