import type { LookupAddress } from 'node:dns';
import { WEBHOOK_RESPONSE_LOG_BYTES } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileReceiver, startHostileReceiver } from '../test/hostileReceiver.ts';
import type { ClaimedDelivery } from './deliveryQueue.ts';
import { sendWebhook, TARGET_NOT_ALLOWED, WEBHOOK_TIMEOUT_MS } from './webhookSend.ts';

// The sender against receivers that answer what no well-behaved one would, on loopback ports.
// Targets are refused before any connection; the only addresses a test here lets it reach are
// loopback ones, whatever the code under test does.

let receiver: HostileReceiver;
beforeAll(async () => {
  receiver = await startHostileReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const delivery = (url: string): ClaimedDelivery => ({
  id: 'whdl_test',
  workspaceId: 'ws_test',
  attempt: 1,
  eventId: 'msg_test',
  payload: JSON.stringify({ type: 'webhook.test', timestamp: '2026-11-25T06:00:00.000Z', data: {} }),
  endpointId: 'whep_test',
  url,
  secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
});

/** A loopback receiver, as a local-development server allows (WEBHOOKS_ALLOW_PRIVATE). */
const sendAllowed = (path: string) => sendWebhook(delivery(receiver.url(path)), { allowPrivate: true });

describe('what a receiver answers is recorded safely', () => {
  it('a body with NUL bytes becomes storable text', async () => {
    const result = await sendAllowed('nul');
    expect(result).toEqual({ statusCode: 500, error: null, responseBody: 'before\uFFFDafter\uFFFD' });
  });

  it('bytes that are not UTF-8 are replaced', async () => {
    const result = await sendAllowed('invalid-utf8');
    expect(result.statusCode).toBe(500);
    expect(result.responseBody).toMatch(/^ok\uFFFD+!$/);
  });

  it('a huge body: its first bytes, as soon as they are in', async () => {
    const result = await sendAllowed('huge');
    expect(result).toEqual({ statusCode: 200, error: null, responseBody: 'x'.repeat(WEBHOOK_RESPONSE_LOG_BYTES) });
  });

  it('a body that never ends: its status and first bytes, not a timeout', async () => {
    const result = await sendAllowed('endless');
    expect(result).toEqual({ statusCode: 200, error: null, responseBody: 'y'.repeat(WEBHOOK_RESPONSE_LOG_BYTES) });
    await expect.poll(receiver.openConnections).toBe(0);
  });

  it('a body that trickles: its status and what came within the body read time, not a timeout', async () => {
    const result = await sendAllowed('trickle');
    expect(result.statusCode).toBe(200);
    expect(result.error).toBeNull();
    expect(result.responseBody).toMatch(/^z*$/);
    await expect.poll(receiver.openConnections).toBe(0);
  });

  it.each([
    ['garbage', /^the answer is not valid HTTP \(HPE_[A-Z_]+\)$/],
    ['huge-headers', /^the answer is not valid HTTP \(HPE_HEADER_OVERFLOW\)$/],
    ['reset', /^connection closed before an answer$/],
  ])('%s: a failed attempt, with a reason in the service’s words', async (path, reason) => {
    const result = await sendAllowed(path);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(reason);
    expect(result.responseBody).toBeNull();
  });

  it('a redirect is a failed attempt, not followed', async () => {
    const result = await sendAllowed('redirect');
    expect(result.statusCode).toBe(302);
    expect(receiver.requestsTo('/redirected')).toBe(0);
  });

  it(
    'a receiver that never answers, or sends its status line a byte at a time, fails at the timeout',
    async () => {
      const [hang, slowloris] = await Promise.all([sendAllowed('hang'), sendAllowed('slowloris')]);
      for (const result of [hang, slowloris]) {
        expect(result).toEqual({
          statusCode: null,
          error: `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`,
          responseBody: null,
        });
      }
      await expect.poll(receiver.openConnections).toBe(0);
    },
    WEBHOOK_TIMEOUT_MS * 3,
  );
});

describe('targets that are not public', () => {
  const resolvesTo =
    (...addresses: string[]) =>
    async (): Promise<LookupAddress[]> =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    // Each reaches this receiver if it is connected to.
    `http://[::ffff:7f00:1]:PORT/ok`,
    `http://[::ffff:127.0.0.1]:PORT/ok`,
    `http://127.1:PORT/ok`,
    `http://2130706433:PORT/ok`,
    `http://0x7f.0.0.1:PORT/ok`,
    `http://localhost:PORT/ok`,
    `http://localhost.:PORT/ok`,
    `http://api.localhost.:PORT/ok`,
  ])('%s is refused without a connection', async (url) => {
    const before = receiver.requestsTo('/ok');
    const result = await sendWebhook(delivery(url.replace('PORT', String(receiver.port))), { allowPrivate: false });
    expect(result).toEqual({ statusCode: null, error: TARGET_NOT_ALLOWED, responseBody: null });
    expect(receiver.requestsTo('/ok')).toBe(before);
  });

  it.each([
    [['127.0.0.1']],
    [['::ffff:7f00:1']],
    [['::1']],
    // One address that is not public refuses the name, wherever it stands in the answer.
    [['::1', '127.0.0.1']],
  ])('a name resolving to %j is refused, and the log does not say what it resolved to', async (addresses) => {
    const before = receiver.requestsTo('/ok');
    const result = await sendWebhook(delivery(`http://hooks.example.invalid:${receiver.port}/ok`), {
      allowPrivate: false,
      resolve: resolvesTo(...addresses),
    });
    expect(result).toEqual({ statusCode: null, error: TARGET_NOT_ALLOWED, responseBody: null });
    for (const address of addresses) expect(result.error).not.toContain(address);
    expect(receiver.requestsTo('/ok')).toBe(before);
  });

  it('a name that does not resolve fails without naming what the resolver said', async () => {
    const result = await sendWebhook(delivery(`http://hooks.example.invalid:${receiver.port}/ok`), {
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.invalid via 10.0.0.53'), {
          code: 'ENOTFOUND',
        });
      },
    });
    expect(result).toEqual({
      statusCode: null,
      error: 'the target host name could not be resolved',
      responseBody: null,
    });
  });

  it('connects to the address the name resolved to once, not to a later answer', async () => {
    const answers = ['127.0.0.1', '127.0.0.2'];
    let lookups = 0;
    const result = await sendWebhook(delivery(`http://hooks.example.invalid:${receiver.port}/ok`), {
      allowPrivate: true,
      // A rebinding resolver: a second question would get an address where nothing listens.
      resolve: async () => [{ address: answers[lookups++] ?? '127.0.0.2', family: 4 }],
    });
    expect(result.statusCode).toBe(200);
    expect(lookups).toBe(1);
  });
});
