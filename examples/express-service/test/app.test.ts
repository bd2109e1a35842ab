import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Unkey } from '@unkey/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';
import { createApp } from '../src/app.ts';

// The example against a real Keyplane process: keys are issued with @unkey/api, then the example's
// routes are called as its customers would call them.

let keyplane: ServerProcess;
let service: Server;
let serviceUrl: string;
let unkey: Unkey;
let apiId: string;

beforeAll(async () => {
  keyplane = await startServerProcess();
  const rootKey = bootstrapRootKey(keyplane);
  unkey = new Unkey({ serverURL: keyplane.url, rootKey });
  apiId = (await unkey.apis.createApi({ name: 'express-service' })).data.apiId;
  service = createApp({ keyplaneUrl: keyplane.url, rootKey }).listen(0, '127.0.0.1');
  await new Promise((resolve) => service.once('listening', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => service?.close(resolve));
  await keyplane?.stop();
});

async function issueKey(fields: Omit<Parameters<Unkey['keys']['createKey']>[0], 'apiId'> = {}): Promise<string> {
  return (await unkey.keys.createKey({ apiId, ...fields })).data.key;
}

function call(path: string, key?: string, method = 'GET'): Promise<Response> {
  return fetch(`${serviceUrl}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
}

describe('401', () => {
  it('a request without a key is refused', async () => {
    const response = await call('/v1/me');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: expect.stringContaining('Authorization: Bearer') });
  });

  it('a key Keyplane does not know is refused', async () => {
    const response = await call('/v1/me', 'sk_not_a_real_key');
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a deleted key is refused', async () => {
    const { keyId, key } = (await unkey.keys.createKey({ apiId })).data;
    await unkey.keys.deleteKey({ keyId });
    expect((await call('/v1/me', key)).status).toBe(401);
  });
});

describe('403', () => {
  it('a key without reports.read may not read reports', async () => {
    const response = await call('/v1/reports', await issueKey());
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
  });
});

describe('200', () => {
  it('a valid key reaches the route, which sees who it belongs to', async () => {
    const response = await call('/v1/me', await issueKey({ name: 'acme prod', externalId: 'acme' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'acme prod', owner: 'acme' });
  });

  it('a key with reports.read reads reports', async () => {
    const response = await call('/v1/reports', await issueKey({ permissions: ['reports.read'] }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ reports: [expect.objectContaining({ id: 'monthly' })] });
  });
});

describe('402', () => {
  it('each generation spends a credit; when they run out the key gets 402 until topped up', async () => {
    const key = await issueKey({ credits: { remaining: 2 } });
    const first = await call('/v1/generate', key, 'POST');
    expect(await first.json()).toMatchObject({ creditsLeft: 1 });
    expect((await call('/v1/generate', key, 'POST')).status).toBe(200);
    const empty = await call('/v1/generate', key, 'POST');
    expect(empty.status).toBe(402);
    expect(await empty.json()).toMatchObject({ code: 'USAGE_EXCEEDED' });
    // Routes that spend nothing still work, and a top-up lets the key generate again.
    expect((await call('/v1/me', key)).status).toBe(200);
    const { keyId } = (await unkey.keys.whoami({ key })).data;
    await unkey.keys.updateCredits({ keyId, operation: 'increment', value: 1 });
    expect((await call('/v1/generate', key, 'POST')).status).toBe(200);
  });
});

describe('429', () => {
  it('passes the key’s rate limit on as RateLimit headers, and Retry-After once it is exceeded', async () => {
    const key = await issueKey({ ratelimits: [{ name: 'requests', limit: 2, duration: 60_000, autoApply: true }] });
    const first = await call('/v1/me', key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);

    expect((await call('/v1/me', key)).headers.get('ratelimit-remaining')).toBe('0');
    const refused = await call('/v1/me', key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a key without rate limits gets no RateLimit headers', async () => {
    const response = await call('/v1/me', await issueKey());
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBeNull();
  });
});
