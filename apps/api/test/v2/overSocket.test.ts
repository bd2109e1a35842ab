import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, type TestWorkspace, useApi } from '../harness.ts';

// The Node server hands the adapter the raw IncomingMessage; in-process tests never take that path.
const api = useApi();
let server: ServerType;
let baseUrl: string;
let workspace: TestWorkspace;

beforeAll(async () => {
  workspace = await api.workspace();
  server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
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
});
