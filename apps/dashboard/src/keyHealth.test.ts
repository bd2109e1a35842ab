import { describe, expect, it } from 'vitest';
import { keyHealth } from './keyHealth.ts';

const NOW = Date.UTC(2026, 10, 28, 12);
const enabled = { enabled: true, ratelimits: [{ name: 'requests', limit: 10, duration: 60_000 }] };
const outcomes = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('keyHealth', () => {
  it('names a key refused by its rate limit on most of its recent calls as rate limited, with the share and the limit', () => {
    const health = keyHealth(enabled, outcomes({ VALID: 39, RATE_LIMITED: 261 }), NOW);
    expect(health).toMatchObject({ label: 'Rate limited', tone: 'warn' });
    expect(health.refusals).toEqual([
      {
        tone: 'warn',
        title: 'Rate limited',
        detail: '87% of its 300 verifications in the last hour were refused by a rate limit (requests: 10 per 1 min).',
      },
    ]);
  });

  it('keeps a key with a few refusals among many calls, or too few calls to judge, enabled', () => {
    expect(keyHealth(enabled, outcomes({ VALID: 90, RATE_LIMITED: 10 }), NOW).label).toBe('Enabled');
    expect(keyHealth(enabled, outcomes({ VALID: 5, RATE_LIMITED: 14 }), NOW).label).toBe('Enabled');
    expect(keyHealth(enabled, undefined, NOW).refusals).toEqual([]);
  });

  it('puts the status a verification answers first: disabled, expired, out of credits', () => {
    const limited = outcomes({ RATE_LIMITED: 100 });
    expect(keyHealth({ ...enabled, enabled: false }, limited, NOW).label).toBe('Disabled');
    expect(keyHealth({ ...enabled, expires: NOW - 1 }, limited, NOW).label).toBe('Expired');
    const spent = keyHealth(
      { ...enabled, credits: { remaining: 0, refill: { interval: 'daily', amount: 500 } } },
      limited,
      NOW,
    );
    expect(spent.label).toBe('Out of credits');
    expect(spent.refusals.map((refusal) => refusal.title)).toEqual(['Out of credits', 'Rate limited']);
    expect(spent.refusals[0]?.detail).toBe(
      'Verifications answer USAGE_EXCEEDED until its daily refill to 500, or until credits are added.',
    );
  });

  it('warns of what is about to refuse it: credits running low, an expiry within a week', () => {
    expect(keyHealth({ enabled: true, credits: { remaining: 3 } }, undefined, NOW).label).toBe('Low credits');
    const expiring = keyHealth({ enabled: true, expires: NOW + 3 * 86_400_000 }, undefined, NOW);
    expect(expiring).toMatchObject({ label: 'Expires soon', tone: 'warn' });
    expect(keyHealth({ enabled: true, expires: NOW + 30 * 86_400_000 }, undefined, NOW).label).toBe('Enabled');
  });
});
