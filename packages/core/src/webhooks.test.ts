import { describe, expect, it } from 'vitest';
import {
  isLocalhostName,
  isPrivateAddress,
  newWebhookSecret,
  WEBHOOK_RESPONSE_LOG_BYTES,
  WEBHOOK_RETRY_DELAYS_MS,
  webhookPayloadReader,
  webhookResponseExcerpt,
  webhookRetryDelay,
  webhookUrlProblem,
} from './webhooks.ts';

describe('isPrivateAddress', () => {
  it.each([
    // IPv4: loopback, private, link-local (cloud metadata), carrier-grade NAT, this network,
    // IETF protocol assignments, documentation, benchmarking, multicast, reserved, broadcast.
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '192.0.0.170',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.7',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    // IPv4 in the forms inet_aton reads: decimal, octal, hex, short.
    '2130706433',
    '0177.0.0.1',
    '0x7f.0.0.1',
    '0x7f000001',
    '127.1',
    '10.1',
    // IPv6: loopback, unspecified, unique local, link-local, site-local, multicast, discard, documentation.
    '::1',
    '::',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    'ff0e::1',
    '100::1',
    '2001:db8::1',
    // IPv6 forms that embed an IPv4 address, whatever the address inside.
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:1.1.1.1',
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::8.8.8.8',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '64:ff9b::808:808',
    '64:ff9b:1::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001::1',
    'not an address',
    '',
    'localhost',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450::1'])(
    'allows %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('isLocalhostName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'localhost..', 'api.localhost', 'api.localhost.'])(
    'is true of %s',
    (name) => {
      expect(isLocalhostName(name)).toBe(true);
    },
  );

  it.each(['localhost.example.com', 'mylocalhost', 'example.com.'])('is false of %s', (name) => {
    expect(isLocalhostName(name)).toBe(false);
  });
});

describe('webhookUrlProblem', () => {
  it('accepts public http(s) URLs', () => {
    expect(webhookUrlProblem('https://hooks.example.com/keyplane', false)).toBeNull();
    expect(webhookUrlProblem('https://hooks.example.com./keyplane', false)).toBeNull();
    expect(webhookUrlProblem('http://8.8.4.4:8080/x', false)).toBeNull();
    expect(webhookUrlProblem('http://[2606:4700::1111]/x', false)).toBeNull();
  });

  it.each([
    ['not a url', 'absolute URL'],
    ['ftp://example.com/x', 'https or http'],
    ['https://user:secret@example.com/x', 'user name or password'],
    ['http://localhost:3000/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://127.0.0.1/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[::1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://169.254.169.254/latest', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://localhost./x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://api.localhost.:8080/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://2130706433/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://0177.0.0.1/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://0x7f.1/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://127.1/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[64:ff9b::a9fe:a9fe]/latest', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[::127.0.0.1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[2002:7f00:1::]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[::ffff:0:7f00:1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[::ffff:127.0.0.1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[fe80::1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[fd12:3456::1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://[ff02::1]/x', 'WEBHOOKS_ALLOW_PRIVATE'],
    ['http://224.0.0.251/x', 'WEBHOOKS_ALLOW_PRIVATE'],
  ])('refuses %s, saying why', (url, reason) => {
    expect(webhookUrlProblem(url, false)).toContain(reason);
  });

  it('lets private targets through when the operator allows them', () => {
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).toContain('https or http');
  });
});

describe('webhookResponseExcerpt', () => {
  const excerpt = (bytes: number[] | string) =>
    webhookResponseExcerpt(typeof bytes === 'string' ? Buffer.from(bytes) : Uint8Array.from(bytes));

  it('keeps UTF-8 text as it is', () => {
    expect(excerpt('{"ok":true} – grüße ✓')).toBe('{"ok":true} – grüße ✓');
  });

  it('replaces NUL, which PostgreSQL text cannot hold', () => {
    expect(excerpt([0x6f, 0x6b, 0x00, 0x21])).toBe('ok\uFFFD!');
    expect(excerpt([0, 0, 0])).not.toContain('\u0000');
  });

  it('replaces bytes that are not UTF-8: stray, overlong, surrogates, cut', () => {
    expect(excerpt([0x61, 0xff, 0xfe, 0x62])).toBe('a\uFFFD\uFFFDb');
    expect(excerpt([0xc0, 0x80])).toBe('\uFFFD\uFFFD');
    const surrogate = excerpt([0xed, 0xa0, 0x80]);
    expect(surrogate).toMatch(/^\uFFFD+$/);
    expect(excerpt([0x61, 0xe2, 0x82])).toBe('a\uFFFD');
  });

  it('keeps the first WEBHOOK_RESPONSE_LOG_BYTES bytes', () => {
    expect(excerpt('x'.repeat(WEBHOOK_RESPONSE_LOG_BYTES * 4))).toBe('x'.repeat(WEBHOOK_RESPONSE_LOG_BYTES));
  });
});

describe('webhookPayloadReader', () => {
  it.each([
    [
      'key.created',
      { keyId: 'key_1', apiId: 'api_1' },
      { resourceType: 'api', resourceId: 'api_1', action: 'read_key' },
    ],
    [
      'key.credits.low',
      { keyId: 'key_1', apiId: 'api_2' },
      { resourceType: 'api', resourceId: 'api_2', action: 'read_key' },
    ],
    [
      'rootkey.created',
      { rootKeyId: 'rk_1' },
      { resourceType: 'workspace', resourceId: '*', action: 'read_root_keys' },
    ],
    [
      'ratelimit.override.changed',
      { namespaceId: 'rlns_1' },
      { resourceType: 'ratelimit', resourceId: 'rlns_1', action: 'read_override' },
    ],
    ['webhook.test', { endpointId: 'whep_1' }, 'everyReader'],
    // What the rule does not know is shown to nobody.
    ['key.created', { keyId: 'key_1' }, 'nobody'],
    ['key.created', { apiId: 7 }, 'nobody'],
    ['ratelimit.override.changed', {}, 'nobody'],
    ['workspace.renamed', { name: 'x' }, 'nobody'],
  ])('%s with %j: %j', (type, data, reader) => {
    expect(webhookPayloadReader(type, data)).toEqual(reader);
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
