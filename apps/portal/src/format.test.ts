import { describe, expect, it } from 'vitest';
import type { Key } from './api.ts';
import { creditsText, formatRelative, keyLabel, limitsText, statusOf, windowText } from './format.ts';

const key = (fields: Partial<Key> = {}): Key => ({
  keyId: 'key_1',
  start: 'sk_ab12',
  enabled: true,
  createdAt: 0,
  ...fields,
});

describe('the key facts the page shows', () => {
  it('names a key by its name, else its start', () => {
    expect(keyLabel(key({ name: 'Production' }))).toBe('Production');
    expect(keyLabel(key())).toBe('Key sk_ab12…');
  });

  it('says the status as verification would judge it', () => {
    const now = 1_000_000;
    expect(statusOf(key(), now).label).toBe('Active');
    expect(statusOf(key({ enabled: false }), now).label).toBe('Disabled');
    expect(statusOf(key({ expires: now - 1 }), now).label).toBe('Expired');
    expect(statusOf(key({ credits: { remaining: 0 } }), now).label).toBe('Out of credits');
  });

  it('says credits and their refill', () => {
    expect(creditsText(key())).toBe('Unlimited');
    expect(creditsText(key({ credits: { remaining: 1200 } }))).toBe('1,200 left');
    expect(creditsText(key({ credits: { remaining: 5, refill: { interval: 'daily', amount: 1000 } } }))).toBe(
      '5 left, refilled to 1,000 daily',
    );
    expect(
      creditsText(key({ credits: { remaining: 5, refill: { interval: 'monthly', amount: 10, refillDay: 3 } } })),
    ).toBe('5 left, refilled to 10 monthly on day 3');
  });

  it('says limits in words', () => {
    expect(windowText(100, 60_000)).toBe('100 per minute');
    expect(windowText(5, 10_000)).toBe('5 per 10 seconds');
    expect(windowText(5, 1500)).toBe('5 per 1,500 ms');
    expect(limitsText(key())).toBe('None');
    expect(
      limitsText(key({ ratelimits: [{ id: 'rl_1', name: 'requests', limit: 10, duration: 1000, autoApply: true }] })),
    ).toBe('requests: 10 per second');
  });

  it('says times relative to now', () => {
    expect(formatRelative(0, 3 * 3_600_000)).toBe('3 hours ago');
    expect(formatRelative(2 * 86_400_000, 0)).toBe('in 2 days');
    expect(formatRelative(0, 10)).toBe('just now');
  });
});
