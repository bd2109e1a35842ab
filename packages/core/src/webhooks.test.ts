import { describe, expect, it } from 'vitest';
import {
  isPrivateAddress,
  newWebhookSecret,
  WEBHOOK_RETRY_DELAYS_MS,
  webhookRetryDelay,
  webhookUrlProblem,
} from './webhooks.ts';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:1.1.1.1'])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('webhookUrlProblem', () => {
  it('accepts public http(s) URLs', () => {
    expect(webhookUrlProblem('https://hooks.example.com/keyplane', false)).toBeNull();
    expect(webhookUrlProblem('http://203.0.113.7:8080/x', false)).toBeNull();
  });

  it.each([
    ['not a url', 'absolute URL'],
    ['ftp://example.com/x', 'https or http'],
    ['https://user:secret@example.com/x', 'user name or password'],
    ['http://localhost:3000/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://127.0.0.1/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[::1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://169.254.169.254/latest', 'WEBHOOKS_ALLOW_PRIVATE'],
  ])('refuses %s, saying why', (url, reason) => {
    expect(webhookUrlProblem(url, false)).toContain(reason);
  });

  it('lets private targets through when the operator allows them', () => {
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).toContain('https or http');
  });
});

describe('webhookRetryDelay', () => {
  it('follows the schedule within ±20%, then gives up', () => {
    for (const [index, delay] of WEBHOOK_RETRY_DELAYS_MS.entries()) {
      expect(webhookRetryDelay(index + 1, WEBHOOK_RETRY_DELAYS_MS, () => 0)).toBe(delay * 0.8);
      expect(webhookRetryDelay(index + 1, WEBHOOK_RETRY_DELAYS_MS, () => 1)).toBe(delay * 1.2);
    }
    expect(webhookRetryDelay(WEBHOOK_RETRY_DELAYS_MS.length + 1, WEBHOOK_RETRY_DELAYS_MS)).toBeNull();
    const total = WEBHOOK_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeGreaterThan(24);
    expect(total / 3_600_000).toBeLessThan(30);
  });
});

it('makes Standard Webhooks secrets', () => {
  const secret = newWebhookSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(newWebhookSecret()).not.toBe(secret);
});
