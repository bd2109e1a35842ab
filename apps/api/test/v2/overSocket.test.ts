import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, type TestWorkspace, useApi } from '../harness.ts';

// The production listener answers /v2 on Node's request and response; in-process tests never take that path.
const api = useApi();
let server: Server;
let baseUrl: string;
let workspace: TestWorkspace;

beforeAll(async () => {
  workspace = await api.workspace();
  server = createServer((request, response) => void api.listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v2/apis.createApi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}`, ...headers },
    body,
  });

describe('/v2 over a socket', () => {
  it('reads the body from the Node request', async () => {
    const response = await post(JSON.stringify({ name: 'over-socket' }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { apiId: string } }).data.apiId).toMatch(/^api_/);
  });

  it('answers 413 for a declared length over the limit', async () => {
    const response = await post(JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(response.status).toBe(413);
  });

  it('answers 413 for a streamed body over the limit with no declared length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_BODY_BYTES + chunk.length) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${baseUrl}/v2/apis.createApi`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('answers 400 for malformed JSON', async () => {
    expect((await post('{"name":')).status).toBe(400);
  });

  it('answers 405 with Allow for other methods, and 404 for unknown procedures', async () => {
    const wrongMethod = await fetch(`${baseUrl}/v2/apis.createApi`, { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await fetch(`${baseUrl}/v2/apis.nothing`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('hands liveness and everything else to the app', async () => {
    expect((await fetch(`${baseUrl}/v2/liveness`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/elsewhere`)).status).toBe(404);
  });

  it('carries requestId and content type on every answer', async () => {
    const response = await post(JSON.stringify({ name: 'with-meta' }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as { meta: { requestId: string } }).meta.requestId).toMatch(/^req_/);
  });
});
